using Voron.LoadTests.Data;
using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Experiments;

internal sealed partial class MergeExperiment
{
    private async Task RunClosedLoopAsync(ExperimentContext context, Report report, List<string> modes, JournalWriteListener journal)
    {
        var duration = _duration ?? (context.Quick ? TimeSpan.FromMilliseconds(400) : TimeSpan.FromSeconds(4));
        var rounds = context.Quick ? 1 : 4;
        var warmUp = context.Quick ? TimeSpan.FromMilliseconds(100) : TimeSpan.FromMilliseconds(500);
        var callerCounts = ClosedLoopCallerCounts;
        report.AddFact("closedSecondsPerMode", duration.TotalSeconds);
        report.AddFact("closedRounds", rounds);
        report.AddFact("closedWarmUpSeconds", warmUp.TotalSeconds);
        report.AddFact("callerCounts", string.Join(", ", callerCounts));

        foreach (var pattern in KeyPattern.All)
        {
            var results = new List<ClosedResult>();
            foreach (var callers in callerCounts)
            {
                results.AddRange(await RunCallerCountAsync(context, report, modes, pattern, callers, duration, rounds, warmUp, journal).ConfigureAwait(false));
            }

            foreach (var result in results)
            {
                double? CpuRatio(string mode) => results.FirstOrDefault(r => r.Mode == mode && r.Callers == result.Callers) is { } other
                    ? result.Cost.CpuMicrosecondsPer(result.Operations) / other.Cost.CpuMicrosecondsPer(other.Operations)
                    : null;
                double? Ratio(string mode) => results.FirstOrDefault(r => r.Mode == mode && r.Callers == result.Callers) is { } other
                    ? result.PerSecond / other.PerSecond
                    : null;
                report.AddRow(
                    ("loop", ClosedLoopName),
                    ("mode", result.Mode),
                    ("keys", pattern.Name),
                    ("flushDelayMs", context.Disk.FlushDelayMs),
                    ("callers", result.Callers),
                    ("ops", result.Operations),
                    ("writesPerSec", result.PerSecond),
                    ("p50Ms", result.Latency.P50Ms),
                    ("p99Ms", result.Latency.P99Ms),
                    ("p999Ms", result.Latency.P999Ms),
                    ("maxMs", result.Latency.MaxMs),
                    ("opsPerFlush", result.Flushes == 0 ? null : result.Operations / (double)result.Flushes),
                    ("journalMedianMs", result.Journal is { Count: > 0 } j ? j.Median : null),
                    ("bytesWrittenPerOp", result.Written.HandedToWrite / (double?)result.Operations),
                    ("cpuUsPerOp", result.Cost.CpuMicrosecondsPer(result.Operations)),
                    ("allocBytesPerOp", result.Cost.AllocatedBytesPer(result.Operations)),
                    ("cpuVsLmdbBatched", CpuRatio(ConcurrentWriterModes.LmdbBatched)),
                    ("writeAmplification", result.Written.HandedToWrite / (double?)result.UserBytes),
                    ("storageWriteAmplification", result.Written.ToStorage / (double?)result.UserBytes),
                    ("onDiskMiB", StoreSize.MiB(result.OnDiskBytes)),
                    ("vsPosix", result.Mode switch { ConcurrentWriterModes.PortableUnmerged => Ratio(ConcurrentWriterModes.Unmerged), ConcurrentWriterModes.PortableMergedAsync => Ratio(ConcurrentWriterModes.MergedAsync), _ => null }),
                    ("vsUnmerged", Ratio(ConcurrentWriterModes.Unmerged)),
                    ("vsMerged", Ratio(ConcurrentWriterModes.Merged)),
                    ("vsSqlite", Ratio(ConcurrentWriterModes.SqliteNaive)),
                    ("vsSqliteBatched", Ratio(ConcurrentWriterModes.SqliteBatched)),
                    ("vsLmdbBatched", Ratio(ConcurrentWriterModes.LmdbBatched)));
            }
        }
    }

    /// <summary>Every mode at one caller count: fresh stores, a warm-up each, then interleaved rounds in rotating order.</summary>
    private static async Task<List<ClosedResult>> RunCallerCountAsync(ExperimentContext context, Report report, List<string> modes, KeyPattern pattern, int callers,
        TimeSpan duration, int rounds, TimeSpan warmUp, JournalWriteListener journal)
    {
        var runs = new List<ClosedRun>();
        try
        {
            foreach (var mode in modes)
            {
                runs.Add(new ClosedRun(Open(context, mode, $"closed-{pattern.Name}-{mode}-{callers}"), pattern, callers, context.Device));
            }

            // The warm-up is a run of its own, settled, before any mode's first round (not the
            // scenario's WithWarmUpDuration, which would warm each mode just before its first round).
            foreach (var run in runs)
            {
                await run.RoundAsync(context, warmUp, record: false).ConfigureAwait(false);
            }

            var load = $"{ClosedLoopName} {pattern.Name} {callers}";
            for (var round = 0; round < rounds; round++)
            {
                foreach (var run in Rotation.For(runs, round))
                {
                    context.Progress($"closed {pattern.Name,-10} {run.Writer.Mode,-18} {callers,5} callers, round {round + 1} of {rounds} ...");
                    report.AddScenario(run.Writer.Mode, load, round + 1, await run.RoundAsync(context, duration / rounds, record: true).ConfigureAwait(false));
                }
            }

            var results = new List<ClosedResult>();
            foreach (var run in runs)
            {
                var journalTimes = run.Writer.VoronEnvironment is { } voron ? journal.For(voron.Path) : null;
                var result = new ClosedResult(run.Writer.Mode, callers, Pooled.Of(run.Rounds), run.Flushes, journalTimes, run.Written, StoreSize.Of(run.Writer.Directory), run.Cost);
                results.Add(result);
                var journalText = journalTimes is { Count: > 0 } ? $", journal record {journalTimes.Median:F2} ms (median)" : "";
                context.Progress($"closed {pattern.Name,-10} {result.Mode,-18} {callers,5} callers: {result.PerSecond,10:N0} writes/s, " +
                                 $"p99 {result.Latency.P99Ms:F2} ms, {result.Operations / (double)Math.Max(1, result.Flushes):F1} ops/flush{journalText}");
            }

            return results;
        }
        finally
        {
            foreach (var run in runs)
            {
                Discard(run.Writer);
            }
        }
    }

    /// <summary>One mode's store and its recorded rounds; each caller (a copy of the scenario) continues its keys from round to round.</summary>
    private sealed class ClosedRun(IConcurrentWriter writer, KeyPattern pattern, int callers, DeviceIo? device)
    {
        private readonly long[] _sequences = new long[callers];
        private readonly byte[][] _values = [.. Enumerable.Range(0, callers).Select(Value)];

        public IConcurrentWriter Writer => writer;

        /// <summary>The recorded rounds.</summary>
        public List<ScenarioStats> Rounds { get; } = [];

        public long Flushes { get; private set; }

        /// <summary>Bytes written during the recorded rounds, their settles included.</summary>
        public WriteCounters Written { get; private set; } = WriteCounters.Zero(device);

        /// <summary>The process's CPU time (every thread: callers, merger, flusher, GC, the load model) and managed allocations during the recorded rounds and their settles.</summary>
        public ProcessCost Cost { get; private set; }

        /// <summary>One round: <c>callers</c> copies writing for <paramref name="duration"/>, then the store's settle inside the measured span.</summary>
        public async Task<ScenarioStats> RoundAsync(ExperimentContext context, TimeSpan duration, bool record)
        {
            var flushesBefore = writer.Flushes;
            var writtenBefore = WriteCounters.Read(device);
            var cost = ProcessCost.Start();
            var scenario = PutScenario(writer,
                    c => pattern.Key(c.CopyNumber, _sequences[c.CopyNumber]++),
                    c => _values[c.CopyNumber])
                .WithLoadSimulations(Simulation.KeepConstant(callers, duration))
                .WithSettle(writer.Settle);
            var stats = await context.RunScenarioAsync(scenario, $"closed {pattern.Name} ").ConfigureAwait(false);
            ThrowOnFailures(stats);
            if (record)
            {
                Written += WriteCounters.Read(device) - writtenBefore;
                var spent = cost.Stop();
                Cost = new ProcessCost(Cost.Cpu + spent.Cpu, Cost.AllocatedBytes + spent.AllocatedBytes);
                Rounds.Add(stats);
                Flushes += writer.Flushes - flushesBefore;
            }

            return stats;
        }
    }

    private sealed record ClosedResult(string Mode, int Callers, Pooled Latency, long Flushes, LatencySample? Journal, WriteCounters Written, long OnDiskBytes, ProcessCost Cost)
    {
        public long Operations => Latency.Operations;

        public double PerSecond => Latency.PerSecond;

        /// <summary>Keys and values written: 8 + 1,024 bytes a write.</summary>
        public long UserBytes => Operations * (8L + ValueSize);
    }
}
