using Voron.LoadTests.Measurement;

namespace Voron.LoadTests.Experiments.Documents;

/// <summary>One engine's result on one workload at one caller count.</summary>
internal sealed record DocumentRunResult(string Engine, string Workload, int Callers, long Operations, double Seconds, LatencySample Latency, long Conflicts)
{
    public double OperationsPerSecond => Operations / Seconds;
}
