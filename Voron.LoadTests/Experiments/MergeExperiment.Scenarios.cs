using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Experiments;

internal sealed partial class MergeExperiment
{
    /// <summary>The step every scenario of this experiment runs: one durable put of a key and a 1 KiB value.</summary>
    internal const string PutStep = "put";

    /// <summary>
    /// A scenario of <paramref name="writer"/>'s mode: each invocation one durable put (step
    /// <see cref="PutStep"/>) of <paramref name="key"/>(context) and <paramref name="value"/>(context).
    /// </summary>
    private static ScenarioProps PutScenario(IConcurrentWriter writer, Func<ScenarioContext, byte[]> key, Func<ScenarioContext, byte[]> value) =>
        Scenario.Create(writer.Mode, context => Step.Run(PutStep, context, async () =>
        {
            await writer.PutAsync(key(context), value(context)).ConfigureAwait(false);
            return Response.Ok(sizeBytes: 8 + ValueSize);
        }));

    /// <summary>Throws when a closed-loop run had a failed write: the closed loop measures an engine that works, as it always did (a failure was an exception).</summary>
    private static void ThrowOnFailures(ScenarioStats stats)
    {
        if (stats.AllFailCount > 0)
        {
            var failures = string.Join("; ", stats.StatusCodes.Where(s => s.IsError).Select(s => $"{s.Count:N0} x {s.StatusCode}: {s.Message}"));
            throw new InvalidOperationException($"{stats.ScenarioName}: {stats.AllFailCount:N0} writes failed ({failures}).");
        }
    }

    /// <summary>
    /// One mode's interleaved rounds taken together. Operations, failures and seconds are summed, so
    /// <see cref="PerSecond"/> is over the rounds' whole time; the latency percentiles are those of
    /// all the rounds' writes together (their histograms added: <see cref="LatencyStats.Pooled"/>),
    /// with the rounds' lowest and highest p99 beside them. One round: that round's figures.
    /// </summary>
    private sealed record Pooled(long Operations, long Failures, double Seconds, LatencyStats Latency, double MinRoundP99Ms, double MaxRoundP99Ms)
    {
        public double PerSecond => Seconds > 0 ? Operations / Seconds : 0;

        public double P50Ms => Latency.P50Ms;

        public double P99Ms => Latency.P99Ms;

        public double P999Ms => Latency.P999Ms;

        public double MaxMs => Latency.MaxMs;

        public static Pooled Of(IReadOnlyList<ScenarioStats> rounds) => new(
            rounds.Sum(r => r.Ok.Count),
            rounds.Sum(r => r.AllFailCount),
            rounds.Sum(r => r.Seconds),
            LatencyStats.Pooled(rounds.Select(r => r.Ok)),
            rounds.Min(r => r.Ok.Latency.P99Ms),
            rounds.Max(r => r.Ok.Latency.P99Ms));
    }
}
