using Voron.LoadTests.Engines;
using Voron.LoadTests.Load;

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
    /// <see cref="PerSecond"/> is over the rounds' whole time; the latency percentiles are the median
    /// over the rounds of each round's (a <see cref="ScenarioStats"/> keeps no histogram to merge),
    /// with the rounds' lowest and highest p99 beside it. One round: that round's figures.
    /// </summary>
    private sealed record Pooled(long Operations, long Failures, double Seconds, double P50Ms, double P99Ms, double MaxMs, double MinRoundP99Ms, double MaxRoundP99Ms)
    {
        public double PerSecond => Seconds > 0 ? Operations / Seconds : 0;

        public static Pooled Of(IReadOnlyList<ScenarioStats> rounds) => new(
            rounds.Sum(r => r.Ok.Count),
            rounds.Sum(r => r.AllFailCount),
            rounds.Sum(r => r.Seconds),
            Median(rounds.Select(r => r.Ok.Latency.P50Ms)),
            Median(rounds.Select(r => r.Ok.Latency.P99Ms)),
            rounds.Max(r => r.Ok.Latency.MaxMs),
            rounds.Min(r => r.Ok.Latency.P99Ms),
            rounds.Max(r => r.Ok.Latency.P99Ms));

        private static double Median(IEnumerable<double> values)
        {
            var summary = new Measurement.RunSummary();
            foreach (var value in values)
            {
                summary.Add(value);
            }

            return summary.Median;
        }
    }
}
