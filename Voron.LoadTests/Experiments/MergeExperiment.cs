using System.Buffers.Binary;
using System.Diagnostics;
using System.Globalization;
using Voron.LoadTests.Engines;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Durable single-operation writes of 1 KiB values from 1, 4, 16, 64 and 256 concurrent callers,
/// side by side in one process: Voron without merging (one transaction and one journal flush per
/// operation), merged (concurrent operations share a transaction and a flush), merged with async
/// commit (the next batch runs while the previous one is flushed), and — with one transaction per
/// operation — SQLite (WAL, synchronous=FULL) and LMDB. For each caller count the three Voron
/// modes run on their own fresh stores in interleaved rounds (round 1 of each mode, then round 2
/// of each, ...), so a slow moment of the machine hits every mode alike; each round ends with a
/// data-file flush of its store, timed with the round, so no store's flush runs during another
/// mode's round. The peers then run once for the same total time. A full run first warms the
/// three Voron modes up (unreported), so the first caller count is not measured on unoptimized
/// code. Each Voron row also gives the median time of one journal record (encode, write,
/// fdatasync) under that load, from the engine's <c>voron.journal.flush_duration</c> metric.
/// </summary>
internal sealed class MergeExperiment : IExperiment
{
    internal const string Unmerged = "voron-unmerged";
    internal const string Merged = "voron-merged";
    internal const string MergedAsync = "voron-merged-async";
    internal static readonly int[] CallerCounts = [1, 4, 16, 64, 256];
    private const int MaxCallers = 16_384; // the peers run a thread per caller
    private const int ValueSize = 1024;
    private static readonly TimeSpan WarmUp = TimeSpan.FromSeconds(1);

    private readonly TimeSpan? _duration;
    private readonly int[]? _callerCounts;

    /// <param name="duration">How long each mode runs at each caller count; default 6 s, 0.4 s with --quick. Tests pass less.</param>
    /// <param name="callerCounts">
    /// Other caller counts than <see cref="CallerCounts"/>, e.g. more callers than one batch takes
    /// (<see cref="StorageEnvironmentOptions.MaxBatchOperations"/>): the command line passes
    /// <c>--callers 64,256,8192</c> or <c>VORON_MERGE_CALLERS=64,256,8192</c> (ExperimentCatalog).
    /// </param>
    public MergeExperiment(TimeSpan? duration = null, int[]? callerCounts = null)
    {
        _duration = duration;
        _callerCounts = callerCounts;
    }

    /// <summary>
    /// Caller counts from a comma-separated list; null for none. A bad list is an
    /// <see cref="ArgumentException"/> naming <paramref name="source"/> (the variable or option it came from).
    /// </summary>
    internal static int[]? ParseCallerCounts(string? text, string source = "VORON_MERGE_CALLERS")
    {
        if (string.IsNullOrWhiteSpace(text))
        {
            return null;
        }

        var counts = new List<int>();
        foreach (var item in text.Split(',', StringSplitOptions.TrimEntries))
        {
            if (!int.TryParse(item, NumberStyles.None, CultureInfo.InvariantCulture, out var count) || count is < 1 or > MaxCallers)
            {
                throw new ArgumentException($"{source} must list caller counts from 1 to {MaxCallers} separated by commas, not '{text}'.");
            }

            counts.Add(count);
        }

        return [.. counts];
    }

    public string Name => "merge";

    public string Description => "durable 1 KiB writes from 1-256 callers: Voron unmerged, merged, merged+async vs SQLite WAL FULL and LMDB";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var duration = _duration ?? (context.Quick ? TimeSpan.FromMilliseconds(400) : TimeSpan.FromSeconds(6));
        var report = new Report(Name, "Merge: durable single-operation writes from concurrent callers");
        context.Progress("measuring write+fdatasync latency (4 KiB)");
        var flush = MachineExperiment.MeasureDurableWrites(Path.Combine(context.NewDirectory("machine"), "probe.bin"), 4096, context.Quick ? 200 : 1000);
        report.AddFact("fdatasyncMedianMs", flush.Median);
        report.AddFact("durability", "every mode durable: Voron acknowledges after the journal fdatasync covering the write; SQLite WAL synchronous=FULL; LMDB default durable mode (sqliteDurability, lmdbDurability)");
        report.AddFact("valueBytes", ValueSize);
        report.AddFact("secondsPerRun", duration.TotalSeconds);

        var peers = KvEngineCatalog.All.Where(k => k.Name != KvEngineCatalog.Voron).ToList();
        var available = new List<KvEngineKind>();
        foreach (var peer in peers)
        {
            try
            {
                report.AddFact($"{peer.Name}Version", peer.Probe());
                report.AddFact($"{peer.Name}Durability", peer.Durability);
                available.Add(peer);
            }
            catch (DllNotFoundException)
            {
                context.Progress(peer.MissingLibraryNote);
                report.AddNote(peer.MissingLibraryNote);
            }
        }

        var rounds = context.Quick ? 1 : 3;
        report.AddFact("roundsPerVoronMode", rounds);
        using var journal = new JournalWriteListener();
        if (!context.Quick)
        {
            context.Progress($"warming up: each Voron mode for {WarmUp.TotalSeconds:F0} s at 16 callers (not reported)");
            await RunVoronModesAsync(context, 16, WarmUp, 1, directoryPrefix: "warm-up-").ConfigureAwait(false);
        }

        var callerCounts = _callerCounts ?? CallerCounts;
        report.AddFact("callerCounts", string.Join(", ", callerCounts));
        var results = new List<MergeResult>();
        foreach (var callers in callerCounts)
        {
            foreach (var run in await RunVoronModesAsync(context, callers, duration, rounds).ConfigureAwait(false))
            {
                results.Add(Finish(context, run.Mode, callers, run.Latencies, run.Seconds, run.Flushes, journal.For(run.Environment.Path)));
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
                ("journalMedianMs", result.Journal?.Median),
                ("vsUnmerged", Ratio(Unmerged)),
                ("vsMerged", Ratio(Merged)),
                ("vsSqlite", Ratio(KvEngineCatalog.Sqlite)));
        }

        report.AddNote("Targets: merged >= 20x unmerged at 256 callers; merged+async >= 1.3x merged at 64 and 256 callers; " +
                       "merged+async >= 10x SQLite (WAL, synchronous=FULL) at 64 callers.");
        report.AddNote("The Voron modes run in interleaved rounds (roundsPerVoronMode), each on its own store; every round's time includes " +
                       "a data-file flush of its store at its end, so one mode's flush never runs during another mode's round.");
        report.AddNote("opsPerFlush: operations acknowledged per journal write+fdatasync (Voron); the peers commit (and sync) once per operation.");
        report.AddNote("journalMedianMs: median time of one Voron journal record under that load (encoding with LZ4, the write and its fdatasync), " +
                       "from the voron.journal.flush_duration metric; compare with fdatasyncMedianMs, measured on an idle disk.");
        report.AddNote("The callers are a closed loop: each waits for its write to be durable before it submits the next. When a batch holds every " +
                       "caller, nothing is queued while it is flushed, so async commit has no next batch to build; it can only gain when more " +
                       "operations are waiting than one batch takes.");
        return report;
    }

    /// <summary>The three Voron modes at <paramref name="callers"/> callers, in interleaved rounds on one store each.</summary>
    private static async Task<List<VoronRun>> RunVoronModesAsync(ExperimentContext context, int callers, TimeSpan duration, int rounds, string directoryPrefix = "")
    {
        string[] modes = [Unmerged, Merged, MergedAsync];
        var runs = new List<VoronRun>();
        try
        {
            foreach (var mode in modes)
            {
                var options = StorageEnvironmentOptions.ForDirectory(context.NewDirectory($"{directoryPrefix}{mode}-{callers}"));
                options.MaxBatchOperations = mode == Unmerged ? 1 : options.MaxBatchOperations;
                options.AsyncCommit = mode == MergedAsync;
                var env = StorageEnvironment.Open(options);
                runs.Add(new VoronRun(mode, env, callers));
                await env.ExecuteAsync(tx => tx.CreateTree("merge")).ConfigureAwait(false);
            }

            for (var round = 1; round <= rounds; round++)
            {
                foreach (var run in runs)
                {
                    context.Progress($"{run.Mode,-19} {callers,3} callers, round {round} of {rounds} ...");
                    await run.RoundAsync(duration / rounds).ConfigureAwait(false);
                }
            }
        }
        finally
        {
            foreach (var run in runs)
            {
                run.Environment.Dispose();
            }
        }

        return runs;
    }

    /// <summary>One Voron mode's store and its totals over the rounds; keys continue from round to round.</summary>
    private sealed class VoronRun(string mode, StorageEnvironment environment, int callers)
    {
        private readonly int[] _sequences = new int[callers];

        public string Mode => mode;

        public StorageEnvironment Environment => environment;

        public LatencySample[] Latencies { get; } = [.. Enumerable.Range(0, callers).Select(_ => new LatencySample())];

        public double Seconds { get; private set; }

        public long Flushes { get; private set; }

        public async Task RoundAsync(TimeSpan duration)
        {
            var flushesBefore = environment.JournalWrites;
            var watch = Stopwatch.StartNew();
            var tasks = Enumerable.Range(0, callers).Select(async caller =>
            {
                var sample = Latencies[caller];
                var value = Value(caller);
                do // at least one operation per caller, however late a busy machine starts it
                {
                    var key = Key(caller, _sequences[caller]++);
                    var start = Stopwatch.GetTimestamp();
                    await environment.ExecuteAsync(tx => tx.CreateTree("merge").Put(key, value)).ConfigureAwait(false);
                    sample.AddTicks(Stopwatch.GetTimestamp() - start);
                }
                while (watch.Elapsed < duration);
            }).ToArray();
            await Task.WhenAll(tasks).ConfigureAwait(false);
            environment.FlushToDataFile(); // this round's data-file flush is its own, not the next mode's
            Seconds += watch.Elapsed.TotalSeconds;
            Flushes += environment.JournalWrites - flushesBefore;
        }
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
            var sequence = 0;
            do // at least one operation per caller, however late a busy machine starts it
            {
                var item = new[] { (Key(caller, sequence), value) };
                var start = Stopwatch.GetTimestamp();
                lock (gate)
                {
                    engine.InsertBatch(item);
                }

                sample.AddTicks(Stopwatch.GetTimestamp() - start);
                sequence++;
            }
            while (watch.Elapsed < duration);
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());
        var seconds = watch.Elapsed.TotalSeconds;
        var operations = latencies.Sum(l => l.Count);
        return Finish(context, kind.Name, callers, latencies, seconds, operations, journal: null);
    }

    private static MergeResult Finish(ExperimentContext context, string mode, int callers, LatencySample[] perCaller, double seconds, long flushes, LatencySample? journal)
    {
        var all = new LatencySample();
        foreach (var sample in perCaller)
        {
            all.AddAll(sample);
        }

        var result = new MergeResult(mode, callers, all.Count, all.Count / seconds, all, flushes == 0 ? 0 : all.Count / (double)flushes, journal);
        var journalText = journal is { Count: > 0 } ? $", journal record {journal.Median:F2} ms (median)" : "";
        context.Progress($"{mode,-19} {callers,3} callers: {result.WritesPerSecond,10:N0} writes/s, p99 {all.Percentile(99):F2} ms, {result.OpsPerFlush:F1} ops/flush{journalText}");
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

    private sealed record MergeResult(string Mode, int Callers, int Operations, double WritesPerSecond, LatencySample Latency, double OpsPerFlush, LatencySample? Journal);
}
