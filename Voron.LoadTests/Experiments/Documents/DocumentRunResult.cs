namespace Voron.LoadTests.Experiments.Documents;

/// <summary>
/// One engine's result on one workload at one caller count: a row of the documents report.
/// <paramref name="Operations"/> counts the operations that did their work (an update that met a
/// conflict, or a query that found nothing, is not one: <see cref="DocumentScenarios"/>).
/// </summary>
internal sealed record DocumentRunResult(string Engine, string Workload, int Callers, long Operations, double Seconds, double P50Ms, double P99Ms, long Conflicts)
{
    public double OperationsPerSecond => Operations / Seconds;

    /// <summary>What the run cost the whole process (every thread's CPU, managed allocations), measured around the scenario.</summary>
    public ProcessCost Cost { get; init; }

    /// <summary>A closed-loop run's row: its ok operations, their latency, its conflicts.</summary>
    public static DocumentRunResult From(string engine, string workload, int callers, ScenarioStats stats) => new(
        engine,
        workload,
        callers,
        stats.Ok.Count,
        stats.Seconds,
        stats.Ok.Latency.P50Ms,
        stats.Ok.Latency.P99Ms,
        stats.StatusCodes.Where(s => s.StatusCode == DocumentScenarios.Conflict).Sum(s => s.Count));
}
