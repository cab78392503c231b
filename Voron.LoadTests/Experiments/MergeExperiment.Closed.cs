using Voron.LoadTests.Data;
using Voron.LoadTests.Engines;
using Voron.LoadTests.Engines.Voron;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

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
                results.AddRange(await RunCallerCountAsync(context, modes, pattern, callers, duration, rounds, warmUp, journal).ConfigureAwait(false));
            }

            foreach (var result in results)
            {
                double? Ratio(string mode) => results.FirstOrDefault(r => r.Mode == mode && r.Callers == result.Callers) is { } other
                    ? result.PerSecond / other.PerSecond
                    : null;
                report.AddRow(
                    ("loop", ClosedLoopName),
                    ("mode", result.Mode),
                    ("keys", pattern.Name),
                    ("flushDelayMs", context.Disk.FlushDelayMs),
                    ("callers", result.Callers),
                    ("ops", result.Latency.Count),
                    ("writesPerSec", result.PerSecond),
                    ("p50Ms", result.Latency.Median),
                    ("p99Ms", result.Latency.Percentile(99)),
                    ("p999Ms", result.Latency.Percentile(99.9)),
                    ("opsPerFlush", result.Flushes == 0 ? null : result.Latency.Count / (double)result.Flushes),
                    ("journalMedianMs", result.Journal is { Count: > 0 } j ? j.Median : null),
                    ("bytesWrittenPerOp", result.Written.HandedToWrite / (double?)result.Latency.Count),
                    ("writeAmplification", result.Written.HandedToWrite / (double?)result.UserBytes),
                    ("storageWriteAmplification", result.Written.ToStorage / (double?)result.UserBytes),
                    ("onDiskMiB", StoreSize.MiB(result.OnDiskBytes)),
                    ("vsPosix", result.Mode switch { PortableUnmerged => Ratio(Unmerged), PortableMergedAsync => Ratio(MergedAsync), _ => null }),
                    ("vsUnmerged", Ratio(Unmerged)),
                    ("vsMerged", Ratio(Merged)),
                    ("vsSqlite", Ratio(SqliteNaive)),
                    ("vsSqliteBatched", Ratio(SqliteBatched)),
                    ("vsLmdbBatched", Ratio(LmdbBatched)));
            }
        }
    }

    /// <summary>Every mode at one caller count: fresh stores, a warm-up each, then interleaved rounds in rotating order.</summary>
    private static async Task<List<ClosedResult>> RunCallerCountAsync(ExperimentContext context, List<string> modes, KeyPattern pattern, int callers,
        TimeSpan duration, int rounds, TimeSpan warmUp, JournalWriteListener journal)
    {
        var runs = new List<ClosedRun>();
        try
        {
            foreach (var mode in modes)
            {
                runs.Add(new ClosedRun(Open(context, mode, $"closed-{pattern.Name}-{mode}-{callers}"), pattern, callers, context.Device));
            }

            foreach (var run in runs)
            {
                await run.RoundAsync(warmUp, record: false).ConfigureAwait(false);
            }

            for (var round = 0; round < rounds; round++)
            {
                foreach (var run in Rotation.For(runs, round))
                {
                    context.Progress($"closed {pattern.Name,-10} {run.Writer.Mode,-18} {callers,5} callers, round {round + 1} of {rounds} ...");
                    await run.RoundAsync(duration / rounds, record: true).ConfigureAwait(false);
                }
            }

            var results = new List<ClosedResult>();
            foreach (var run in runs)
            {
                var journalTimes = run.Writer is VoronMergedWriter voron ? journal.For(voron.Environment.Path) : null;
                var result = new ClosedResult(run.Writer.Mode, callers, run.Latency, run.Seconds, run.Flushes, journalTimes, run.Written, StoreSize.Of(run.Writer.Directory));
                results.Add(result);
                var journalText = journalTimes is { Count: > 0 } ? $", journal record {journalTimes.Median:F2} ms (median)" : "";
                context.Progress($"closed {pattern.Name,-10} {result.Mode,-18} {callers,5} callers: {result.PerSecond,10:N0} writes/s, " +
                                 $"p99 {result.Latency.Percentile(99):F2} ms, {result.Latency.Count / (double)Math.Max(1, result.Flushes):F1} ops/flush{journalText}");
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

    /// <summary>One mode's store and its totals over the rounds; each caller's keys continue from round to round.</summary>
    private sealed class ClosedRun(IConcurrentWriter writer, KeyPattern pattern, int callers, DeviceIo? device)
    {
        private readonly long[] _sequences = new long[callers];
        private readonly byte[][] _values = [.. Enumerable.Range(0, callers).Select(Value)];

        public IConcurrentWriter Writer => writer;

        public LatencySample Latency { get; } = new();

        public double Seconds { get; private set; }

        public long Flushes { get; private set; }

        /// <summary>Bytes written during the recorded rounds, their settles included.</summary>
        private readonly DeviceIo? _device = device;

        public WriteCounters Written { get; private set; } = WriteCounters.Zero(device);

        public async Task RoundAsync(TimeSpan duration, bool record)
        {
            var flushesBefore = writer.Flushes;
            var writtenBefore = WriteCounters.Read(_device);
            var result = await ClosedLoop.RunAsync(callers, duration,
                caller => writer.PutAsync(pattern.Key(caller, _sequences[caller]++), _values[caller]),
                writer.Settle).ConfigureAwait(false);
            if (record)
            {
                Written += WriteCounters.Read(_device) - writtenBefore;
                Latency.AddAll(result.Latency);
                Seconds += result.Seconds;
                Flushes += writer.Flushes - flushesBefore;
            }
        }
    }

    private sealed record ClosedResult(string Mode, int Callers, LatencySample Latency, double Seconds, long Flushes, LatencySample? Journal,
        WriteCounters Written, long OnDiskBytes)
    {
        public double PerSecond => Latency.Count / Seconds;

        /// <summary>Keys and values written: 8 + 1,024 bytes a write.</summary>
        public long UserBytes => Latency.Count * (8L + ValueSize);
    }
}
