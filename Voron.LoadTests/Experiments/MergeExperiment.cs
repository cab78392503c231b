using Voron.LoadTests.Data;
using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Durable single-operation writes of 1 KiB values from concurrent callers, every mode through
/// the same harness (<see cref="IConcurrentWriter"/>):
/// <list type="bullet">
/// <item>Voron unmerged (one transaction and journal flush per write), merged (concurrent writes
///   share a transaction and a flush), merged with async commit (the next batch runs while the
///   previous one is flushed);</item>
/// <item>Voron portable unmerged and merged+async: the same two over the portable file system
///   (Platform/Portable, what Windows and macOS run), closed loop only; vsPosix divides each by
///   its POSIX fast-path twin;</item>
/// <item>SQLite (WAL, synchronous=FULL) and LMDB naive: one transaction per write, callers served
///   in arrival order (what an application that does not batch gets);</item>
/// <item>SQLite and LMDB batched: the same callers through a FIFO queue, everything queued
///   committed as one transaction (the group commit an application can build itself).</item>
/// </list>
/// Two loops (<c>--loops</c>):
/// <list type="bullet">
/// <item>closed: 1–256 callers (<c>--callers</c>, the copies of a <see cref="Simulation.KeepConstant"/>
///   scenario), each writing its next value once the previous one is durable. For each caller count and key pattern every mode runs on a fresh store, warms up
///   (unreported), then runs in interleaved rounds whose order rotates; each round ends with its
///   store's settle (Voron's data-file flush, SQLite's checkpoint) inside the round's time.</item>
/// <item>open: writes arrive at a fixed rate whatever the engine does (<see cref="Simulation.Inject"/>), for
///   Voron merged, merged+async and the batched peers: a sweep of rising rates finds each mode's
///   saturation rate (<see cref="SaturationSweep"/>: the highest rate whose p99 stays within 10 ms and that it keeps up with);
///   then merged and merged+async (and the peers) run interleaved at 50% and 80% of merged's.</item>
/// </list>
/// Both key patterns run (<see cref="KeyPattern"/>): sequential keys append at the right edge of
/// the tree (the best case for every B-tree and for page diffs); random keys spread writes over it.
/// With <c>--flush-delay</c> every flush is slower by a simulated delay (<see cref="SimulatedDisk"/>).
/// </summary>
internal sealed partial class MergeExperiment : IExperiment
{

    internal const string ClosedLoopName = "closed";
    internal const string OpenLoopName = "open";

    internal static readonly int[] CallerCounts = [1, 4, 16, 64, 256];
    /// <summary>Every store's modes (<see cref="ConcurrentWriterModes.All"/>): the closed loop runs them all.</summary>
    internal static readonly string[] ClosedModes = [.. ConcurrentWriterModes.All.Select(k => k.Mode)];

    /// <summary>The modes the open loop runs too: Voron merged and merged+async, the batched peers.</summary>
    internal static readonly string[] OpenModes = [.. ConcurrentWriterModes.All.Where(k => k.OpenLoop).Select(k => k.Mode)];

    internal const int ValueSize = 1024;
    private const int MaxCallers = 16_384;

    private readonly TimeSpan? _duration;
    private readonly int[] _callerCounts;
    private readonly string[] _loops;
    private readonly OpenLoopSettings? _openSettings;

    /// <param name="duration">How long each mode runs at each caller count (closed loop); default 4 s, 0.4 s with --quick. Tests pass less.</param>
    /// <param name="callerCounts">
    /// Other caller counts than <see cref="CallerCounts"/>, e.g. more callers than one batch takes
    /// (<see cref="StorageEnvironmentOptions.MaxBatchOperations"/>): the command line passes
    /// <c>--callers 64,256,8192</c> or <c>VORON_MERGE_CALLERS=64,256,8192</c> (ExperimentCatalog).
    /// </param>
    /// <param name="loops">closed, open or both (<c>--loops</c>); both by default.</param>
    /// <param name="openSettings">The open loop's steps and durations; tests pass tiny ones.</param>
    public MergeExperiment(TimeSpan? duration = null, int[]? callerCounts = null, string[]? loops = null, OpenLoopSettings? openSettings = null)
    {
        _duration = duration;
        _callerCounts = callerCounts is { Length: > 0 } ? callerCounts : CallerCounts; // the command line gives an empty list when --callers is not given
        _loops = loops is { Length: > 0 } ? loops : [ClosedLoopName, OpenLoopName]; // the command line gives an empty list for none
        _openSettings = openSettings;
    }

    /// <summary>The caller counts the closed loop runs: those given, else <see cref="CallerCounts"/>.</summary>
    internal IReadOnlyList<int> ClosedLoopCallerCounts => _callerCounts;

    /// <summary>The loops this run measures.</summary>
    internal IReadOnlyList<string> Loops => _loops;

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

    public string Description => "durable 1 KiB writes: closed loop (1-256 callers) and open loop (fixed arrival rates, saturation): Voron unmerged/merged/merged+async vs SQLite and LMDB, naive and batched";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var report = context.NewReport(Name, "Merge: durable single-operation writes from concurrent callers");
        report.GroupMarkdownBy("loop");
        report.AddFact("durability", "every mode durable: Voron acknowledges after the journal fdatasync covering the write; SQLite WAL synchronous=FULL; LMDB default durable mode (sqliteDurability, lmdbDurability)");
        report.AddFact("valueBytes", ValueSize);
        report.AddFact("keyPatterns", string.Join(", ", KeyPattern.All.Select(p => p.Name)));
        report.AddFact("peerBatchMax", BatchedPeerWriter.MaxBatch);
        report.AddFact("loops", string.Join(", ", _loops));
        var peers = KvEngineCatalog.Available(context, report, ConcurrentWriterModes.All.Select(k => k.Peer).OfType<string>().Distinct()).Select(k => k.Name).ToHashSet();
        var closedModes = ClosedModes.Where(m => Available(m, peers)).ToList();
        var openModes = OpenModes.Where(m => Available(m, peers)).ToList();

        using var journal = new JournalWriteListener();
        await WarmUpProcessAsync(context, report).ConfigureAwait(false);
        if (_loops.Contains(ClosedLoopName))
        {
            await RunClosedLoopAsync(context, report, closedModes, journal).ConfigureAwait(false);
        }

        if (_loops.Contains(OpenLoopName))
        {
            await RunOpenLoopAsync(context, report, openModes).ConfigureAwait(false);
        }

        AddNotes(report);
        report.AddNote(WriteCounters.Note(context.Device));
        return report;
    }

    /// <summary>
    /// Before anything is measured: 64 closed-loop callers for a while on a merged and a
    /// merged+async store, so the code is compiled and tiered and the thread pool has grown to
    /// what this load needs, as in a process that has been serving for a while. Without it the
    /// first mode measured pays for the pool's growth: the merger blocks pool threads in its
    /// journal writes, and the first open-loop point's p99 grows many times over
    /// (docs/results/2026-12-06-code-comment-measurements.md).
    /// </summary>
    private static async Task WarmUpProcessAsync(ExperimentContext context, Report report)
    {
        var duration = context.Quick ? TimeSpan.FromMilliseconds(300) : TimeSpan.FromSeconds(2);
        context.Progress($"warming the process up: 64 callers on a merged and a merged+async store, {duration.TotalSeconds:0.#} s each (not reported)");
        foreach (var mode in new[] { ConcurrentWriterModes.Merged, ConcurrentWriterModes.MergedAsync })
        {
            var writer = Open(context, mode, $"process-warm-up-{mode}");
            try
            {
                var values = Enumerable.Range(0, 64).Select(Value).ToArray();
                var sequences = new long[64];
                var scenario = PutScenario(writer, c => KeyPattern.Random.Key(c.CopyNumber, sequences[c.CopyNumber]++), c => values[c.CopyNumber])
                    .WithLoadSimulations(Simulation.KeepConstant(64, duration))
                    .WithSettle(writer.Settle);
                ThrowOnFailures(await context.RunScenarioAsync(scenario, "process warm-up ").ConfigureAwait(false));
            }
            finally
            {
                Discard(writer);
            }
        }

        ThreadPool.GetMinThreads(out var minimum, out _);
        report.AddFact("threadPool", $"minimum {minimum} worker threads (the default); {ThreadPool.ThreadCount} threads after the process warm-up");
    }

    private static bool Available(string mode, HashSet<string> peers) =>
        ConcurrentWriterModes.Find(mode).Peer is not { } peer || peers.Contains(peer);

    /// <summary>Opens <paramref name="mode"/>'s store in a fresh directory named <paramref name="name"/>, on the context's disk.</summary>
    internal static IConcurrentWriter Open(ExperimentContext context, string mode, string name) =>
        ConcurrentWriterModes.Find(mode).Open(context.NewDirectory(name), context.Disk);

    /// <summary>Disposes a writer and deletes its store.</summary>
    internal static void Discard(IConcurrentWriter writer)
    {
        var directory = writer.Directory;
        writer.Dispose();
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>The value every write of <paramref name="writer"/> puts: 1 KiB of random bytes, fixed per writer.</summary>
    internal static byte[] Value(int writer)
    {
        var value = new byte[ValueSize];
        new Random(writer).NextBytes(value);
        return value;
    }

    private static void AddNotes(Report report)
    {
        report.AddNote("Closed loop: each caller writes its next value once the previous one is durable. Modes run on fresh stores per caller count and key pattern, " +
                       "warm up unreported, then run in interleaved rounds (their order rotated each round), each round timed with its store's settle: " +
                       "Voron's data-file flush, SQLite's checkpoint; so no mode's deferred work runs during another's round.");
        report.AddNote("sqlite and lmdb: one transaction per write, callers served in arrival order (a FIFO queue, not an unfair lock): what an application that " +
                       "does not batch gets. sqlite-batched and lmdb-batched: the same callers through a FIFO queue, all queued writes (up to peerBatchMax) committed as one transaction.");
        report.AddNote("opsPerFlush: writes acknowledged per durable flush (Voron: journal write + fdatasync; peers: commits). journalMedianMs: median time of one " +
                       "Voron journal record under that load (encoding, write, fdatasync), from the voron.journal.flush_duration metric.");
        report.AddNote("Open loop: writes start on a fixed schedule (offeredPerSec) whatever the engine does, and each write's latency runs from its scheduled start " +
                       "to its acknowledgement, so queueing shows (no coordinated omission). writesPerSec counts completed writes over the time to the last one. " +
                       "A sweep point is ok when p99 <= 10 ms and writesPerSec >= 90% of offeredPerSec; the saturation rate is the highest ok rate " +
                       "(a rising sweep, then bisection). The target points run merged and merged+async (and the batched peers) interleaved at 50% and 80% of merged's saturation rate.");
        report.AddNote("Latency (HdrHistogram, 3 significant digits): a row over several interleaved rounds (closed loop, target points) gives the percentiles " +
                       "of all the rounds' writes together (their histograms added: p50Ms, p99Ms, p999Ms, maxMs), with the rounds' lowest and highest p99 " +
                       "beside them at the target points (minRoundP99Ms, maxRoundP99Ms).");
        report.AddNote("Closed loop, bytes: bytesWrittenPerOp and writeAmplification count the bytes handed to write calls over the recorded rounds and their settles " +
                       "(over 8 + 1,024 bytes of key and value a write); onDiskMiB: the store's files after the last round (Voron's 64 MiB preallocated journal file included).");
        report.AddNote("Closed loop, cost: cpuUsPerOp is the process's CPU time (Environment.CpuUsage) over the recorded rounds and their settles, per write; " +
                       "every thread counts: the callers, the load model, the garbage collector and, for Voron, the merger, the journal writer and the data-file flusher, " +
                       "which are threads of this process (LMDB's and SQLite's work runs on the callers' and the queue's threads, also counted). " +
                       "cpuVsLmdbBatched divides it by lmdb-batched's at the same caller count and key pattern (below 1: less CPU per write). " +
                       "allocBytesPerOp: managed bytes allocated by every thread over the same span, per write (native allocations not counted).");
        report.AddNote("Targets: closed loop, merged >= 20x unmerged at 256 callers, merged+async >= 10x SQLite at 64 callers; " +
                       "open loop with a 1 ms (simulated) flush, merged+async p99 <= 0.75x merged's at 50% and 80% of merged's saturation rate.");
    }
}
