using System.Buffers.Binary;
using System.Diagnostics;
using Voron.LoadTests.Engines;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Durable single-operation writes of 1 KiB values from 1, 4, 16, 64 and 256 concurrent callers,
/// side by side in one process: Voron without merging (one transaction and one journal flush per
/// operation), merged (concurrent operations share a transaction and a flush), merged with async
/// commit (the next batch runs while the previous one is flushed), and — with one transaction per
/// operation — SQLite (WAL, synchronous=FULL) and LMDB. For each caller count the modes run one
/// after another on fresh stores, each for a fixed time, so every mode sees the same machine state.
/// </summary>
internal sealed class MergeExperiment : IExperiment
{
    internal const string Unmerged = "voron-unmerged";
    internal const string Merged = "voron-merged";
    internal const string MergedAsync = "voron-merged-async";
    internal static readonly int[] CallerCounts = [1, 4, 16, 64, 256];
    private const int ValueSize = 1024;

    private readonly TimeSpan? _duration;

    /// <param name="duration">How long each mode runs at each caller count; default 3 s, 0.4 s with --quick. Tests pass less.</param>
    public MergeExperiment(TimeSpan? duration = null)
    {
        _duration = duration;
    }

    public string Name => "merge";

    public string Description => "durable 1 KiB writes from 1-256 callers: Voron unmerged, merged, merged+async vs SQLite WAL FULL and LMDB";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var duration = _duration ?? (context.Quick ? TimeSpan.FromMilliseconds(400) : TimeSpan.FromSeconds(3));
        var report = new Report(Name, "Merge: durable single-operation writes from concurrent callers");
        context.Progress("measuring write+fdatasync latency (4 KiB)");
        var flush = MachineExperiment.MeasureDurableWrites(Path.Combine(context.NewDirectory("machine"), "probe.bin"), 4096, context.Quick ? 200 : 1000);
        report.AddFact("fdatasyncMedianMs", flush.Median);
        report.AddFact("durability", "every mode durable: Voron acknowledges after the journal fdatasync covering the write; SQLite WAL synchronous=FULL; LMDB default (fsync per commit)");
        report.AddFact("valueBytes", ValueSize);
        report.AddFact("secondsPerRun", duration.TotalSeconds);

        var peers = KvEngineCatalog.All.Where(k => k.Name != KvEngineCatalog.Voron).ToList();
        var available = new List<KvEngineKind>();
        foreach (var peer in peers)
        {
            try
            {
                peer.Probe();
                available.Add(peer);
            }
            catch (DllNotFoundException)
            {
                context.Progress(peer.MissingLibraryNote);
                report.AddNote(peer.MissingLibraryNote);
            }
        }

        var results = new List<MergeResult>();
        foreach (var callers in CallerCounts)
        {
            foreach (var mode in new[] { Unmerged, Merged, MergedAsync })
            {
                results.Add(await RunVoronAsync(context, mode, callers, duration).ConfigureAwait(false));
            }

            foreach (var peer in available)
            {
                results.Add(RunPeer(context, peer, callers, duration));
            }
        }

        foreach (var result in results)
        {
            double? Ratio(string mode) => results.FirstOrDefault(r => r.Mode == mode && r.Callers == result.Callers) is { } other
                ? result.WritesPerSecond / other.WritesPerSecond
                : null;
            report.AddRow(
                ("mode", result.Mode),
                ("callers", result.Callers),
                ("ops", result.Operations),
                ("writesPerSec", result.WritesPerSecond),
                ("p50Ms", result.Latency.Median),
                ("p99Ms", result.Latency.Percentile(99)),
                ("opsPerFlush", result.OpsPerFlush),
                ("vsUnmerged", Ratio(Unmerged)),
                ("vsMerged", Ratio(Merged)),
                ("vsSqlite", Ratio(KvEngineCatalog.Sqlite)));
        }

        report.AddNote("Targets: merged >= 20x unmerged at 256 callers; merged+async >= 1.3x merged at 64 and 256 callers; " +
                       "merged+async >= 10x SQLite (WAL, synchronous=FULL) at 64 callers.");
        report.AddNote("opsPerFlush: operations acknowledged per journal write+fdatasync (Voron); the peers commit (and sync) once per operation.");
        return report;
    }

    private static async Task<MergeResult> RunVoronAsync(ExperimentContext context, string mode, int callers, TimeSpan duration)
    {
        context.Progress($"{mode,-19} {callers,3} callers ...");
        var options = StorageEnvironmentOptions.ForDirectory(context.NewDirectory($"{mode}-{callers}"));
        options.MaxBatchOperations = mode == Unmerged ? 1 : options.MaxBatchOperations;
        options.AsyncCommit = mode == MergedAsync;
        using var env = StorageEnvironment.Open(options);
        await env.ExecuteAsync(tx => tx.CreateTree("merge")).ConfigureAwait(false);
        var flushesBefore = env.JournalWrites;
        var latencies = new LatencySample[callers];
        var watch = Stopwatch.StartNew();
        var tasks = Enumerable.Range(0, callers).Select(async caller =>
        {
            var sample = latencies[caller] = new LatencySample();
            var value = Value(caller);
            for (var sequence = 0; watch.Elapsed < duration; sequence++)
            {
                var key = Key(caller, sequence);
                var start = Stopwatch.GetTimestamp();
                await env.ExecuteAsync(tx => tx.CreateTree("merge").Put(key, value)).ConfigureAwait(false);
                sample.AddTicks(Stopwatch.GetTimestamp() - start);
            }
        }).ToArray();
        await Task.WhenAll(tasks).ConfigureAwait(false);
        var seconds = watch.Elapsed.TotalSeconds;
        var flushes = env.JournalWrites - flushesBefore;
        return Finish(context, mode, callers, latencies, seconds, flushes);
    }

    private static MergeResult RunPeer(ExperimentContext context, KvEngineKind kind, int callers, TimeSpan duration)
    {
        context.Progress($"{kind.Name,-19} {callers,3} callers ...");
        using var engine = kind.Open(context.NewDirectory($"{kind.Name}-{callers}"));
        var gate = new object(); // one writer at a time, as both engines allow: callers queue here
        var latencies = new LatencySample[callers];
        var watch = Stopwatch.StartNew();
        var threads = Enumerable.Range(0, callers).Select(caller => new Thread(() =>
        {
            var sample = latencies[caller] = new LatencySample();
            var value = Value(caller);
            for (var sequence = 0; watch.Elapsed < duration; sequence++)
            {
                var item = new[] { (Key(caller, sequence), value) };
                var start = Stopwatch.GetTimestamp();
                lock (gate)
                {
                    engine.InsertBatch(item);
                }

                sample.AddTicks(Stopwatch.GetTimestamp() - start);
            }
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());
        var seconds = watch.Elapsed.TotalSeconds;
        var operations = latencies.Sum(l => l.Count);
        return Finish(context, kind.Name, callers, latencies, seconds, operations);
    }

    private static MergeResult Finish(ExperimentContext context, string mode, int callers, LatencySample[] perCaller, double seconds, long flushes)
    {
        var all = new LatencySample();
        foreach (var sample in perCaller)
        {
            all.AddAll(sample);
        }

        var result = new MergeResult(mode, callers, all.Count, all.Count / seconds, all, flushes == 0 ? 0 : all.Count / (double)flushes);
        context.Progress($"{mode,-19} {callers,3} callers: {result.WritesPerSecond,10:N0} writes/s, p99 {all.Percentile(99):F2} ms, {result.OpsPerFlush:F1} ops/flush");
        return result;
    }

    private static byte[] Key(int caller, int sequence)
    {
        // Callers' keys interleave across the key space, as independent clients' would.
        var key = new byte[8];
        BinaryPrimitives.WriteInt32BigEndian(key, sequence);
        BinaryPrimitives.WriteInt32BigEndian(key.AsSpan(4), caller);
        return key;
    }

    private static byte[] Value(int caller)
    {
        var value = new byte[ValueSize];
        new Random(caller).NextBytes(value);
        return value;
    }

    private sealed record MergeResult(string Mode, int Callers, int Operations, double WritesPerSecond, LatencySample Latency, double OpsPerFlush);
}
