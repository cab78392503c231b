using System.Diagnostics;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// Closed-loop load: <c>callers</c> concurrent callers, each starting its next operation when its
/// previous one completes, for a fixed time (every caller does at least one). Each operation's
/// latency runs from its start to its completion; a slow system slows its callers down, so this
/// measures throughput at a concurrency, not latency at a load (<see cref="OpenLoop"/> does that).
/// </summary>
internal static class ClosedLoop
{
    /// <summary>
    /// Runs <paramref name="operation"/>(caller) in a loop on each caller for <paramref name="duration"/>;
    /// then <paramref name="settle"/>, if given, inside the timed run: the work the operations
    /// caused that an engine does after acknowledging them (Voron's data-file flush), so that the
    /// next run, of another engine, does not pay for it.
    /// </summary>
    public static async Task<ClosedLoopResult> RunAsync(int callers, TimeSpan duration, Func<int, Task> operation, Action? settle = null)
    {
        var samples = Enumerable.Range(0, callers).Select(_ => new LatencySample()).ToArray();
        var watch = Stopwatch.StartNew();
        var tasks = Enumerable.Range(0, callers).Select(caller => Task.Run(async () =>
        {
            var sample = samples[caller];
            do
            {
                var start = Stopwatch.GetTimestamp();
                await operation(caller).ConfigureAwait(false);
                sample.AddTicks(Stopwatch.GetTimestamp() - start);
            }
            while (watch.Elapsed < duration);
        })).ToArray();
        await Task.WhenAll(tasks).ConfigureAwait(false);
        settle?.Invoke();
        var seconds = watch.Elapsed.TotalSeconds;
        var all = new LatencySample();
        foreach (var sample in samples)
        {
            all.AddAll(sample);
        }

        return new ClosedLoopResult(callers, all, seconds);
    }
}

/// <summary>One closed-loop run: every operation's latency, and the wall time.</summary>
internal sealed record ClosedLoopResult(int Callers, LatencySample Latency, double Seconds)
{
    public int Operations => Latency.Count;

    public double PerSecond => Operations / Seconds;
}
