using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Key-value engines side by side in one process (<see cref="KvEngineCatalog"/>: Voron, SQLite via
/// Microsoft.Data.Sqlite with and without mmap_size, LMDB via LightningDB), N = 1,000,000 by
/// default (20,000 with --quick), data from <see cref="KvDataSet"/>:
/// <list type="number">
/// <item><c>seq-insert-1tx</c>: N small entries (8-byte key, 100-byte value) in key order, one durable transaction.</item>
/// <item><c>random-insert-100</c>: N/5 small entries in a random order, durable transactions of 100.</item>
/// <item><c>json-insert-100</c>: N/20 JSON documents of 0.5–4 KiB, random keys, transactions of 100.</item>
/// <item><c>json-read-1t</c>: random point reads of those documents, each 4 times, one thread.</item>
/// <item><c>overflow-insert-10</c>: N/200 JSON documents of 12–20 KiB (overflow pages in every engine), transactions of 10.</item>
/// <item><c>overflow-read-1t</c>: random point reads of those, each 10 times, one thread.</item>
/// <item><c>random-read-1t</c> and <c>random-read-2t</c>: every small key once in a random order, from one and two threads, on a store loaded (untimed) with the N small entries in a random order.</item>
/// <item><c>scan</c>: every entry of that store in key order.</item>
/// </list>
/// Equal work: a write workload's time runs until the engine has settled the work its writes
/// caused (<see cref="IKvEngine.Settle"/>: Voron's data-file flush, SQLite's checkpoint), and
/// both the acknowledged and the settled rates are reported; each insert workload runs on a fresh
/// store. Same cache state: every reader reads the whole store once before its clock starts (a
/// new SQLite connection's page cache is empty). Repeated: every workload runs
/// <c>--runs</c> times (default 5), the engines' order rotated each run, reported as the median
/// with min and max. Bytes written come from /proc/self/io; the size on disk is every file of the store.
/// After each insert workload every store must scan to the right count and find a sample of its keys.
/// After the first run's in-order load, each Voron store's page occupancy is a fact (<c>leafFill.voron.seq-insert-1tx</c>).
/// With <c>--encrypt</c> (or <c>--engines voron,voron-sealed</c>) the sealed variant runs beside
/// voron, and its rows give the ratio to voron's against <see cref="SealedTargets"/>.
/// </summary>
internal sealed partial class KvExperiment : IExperiment
{
    internal const int Seed = 20_261_121;

    internal const string SeqInsert = "seq-insert-1tx";
    internal const string RandomInsert = "random-insert-100";
    internal const string JsonInsert = "json-insert-100";
    internal const string JsonRead = "json-read-1t";
    internal const string OverflowInsert = "overflow-insert-10";
    internal const string OverflowRead = "overflow-read-1t";
    internal const string RandomRead1 = "random-read-1t";
    internal const string RandomRead2 = "random-read-2t";
    internal const string Scan = "scan";

    internal static readonly string[] Workloads =
        [SeqInsert, RandomInsert, JsonInsert, JsonRead, OverflowInsert, OverflowRead, RandomRead1, RandomRead2, Scan];

    internal static readonly string[] WriteWorkloads = [SeqInsert, RandomInsert, JsonInsert, OverflowInsert];

    private readonly int? _entryCount;
    private readonly int? _runs;
    private readonly IReadOnlyList<string>? _engines;
    private readonly bool _encrypt;

    /// <param name="entryCount">N; by default 1,000,000, or 20,000 for a quick run (<c>--entries</c> or <c>VORON_KV_N</c>).</param>
    /// <param name="runs">Runs of each workload; by default 5, 2 for a quick run (<c>--runs</c>).</param>
    /// <param name="engines">The engines to run (<c>--engines</c>); all unsealed ones by default.</param>
    /// <param name="encrypt">Whether each chosen engine that has a sealed variant runs it beside it (<c>--encrypt</c>).</param>
    public KvExperiment(int? entryCount = null, int? runs = null, IReadOnlyList<string>? engines = null, bool encrypt = false)
    {
        if (entryCount is <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(entryCount), entryCount, "N must be positive.");
        }

        _entryCount = entryCount;
        _runs = runs;
        _engines = engines;
        _encrypt = encrypt;
    }

    public string Name => "kv";

    public string Description => "key-value engines side by side: durable inserts (small, JSON, overflow values), point reads (warm, 1 and 2 threads), scan; 5 rotated runs";

    public Task<Report> RunAsync(ExperimentContext context)
    {
        var count = _entryCount ?? (context.Quick ? 20_000 : 1_000_000);
        var runs = _runs ?? (context.Quick ? 2 : 5);
        var report = context.NewReport(Name, "Key-value engines side by side: durable inserts, point reads, scan");
        report.AddFact("entries", count);
        report.AddFact("runs", runs);
        report.AddFact("keys", $"{KvDataSet.KeySize}-byte big-endian integers");
        report.AddFact("smallValueBytes", KvDataSet.ValueSize);
        report.AddFact("jsonValueBytes", $"{KvDataSet.JsonMinBytes}-{KvDataSet.JsonMaxBytes} (realistic JSON documents)");
        report.AddFact("overflowValueBytes", $"{KvDataSet.OverflowMinBytes}-{KvDataSet.OverflowMaxBytes} (realistic JSON documents)");
        report.AddFact("seed", Seed.ToString(CultureInfo.InvariantCulture));
        report.AddFact("loadAverageAtStart", LoadAverage());

        var engines = KvEngineCatalog.Available(context, report, _engines, KvEngineCatalog.WithSealed, _encrypt);
        context.Progress($"building the data set: {count:N0} small entries, {count / KvDataSet.JsonDivisor:N0} JSON and {count / KvDataSet.OverflowDivisor:N0} overflow documents (seed {Seed})");
        var data = KvDataSet.Create(count, Seed);
        report.AddFact("jsonDocuments", data.Json.Length);
        report.AddFact("jsonMeanBytes", data.Json.Average(j => j.Value!.Length));
        report.AddFact("overflowDocuments", data.Overflow.Length);

        var results = new List<KvRun>();
        var readStores = new Dictionary<string, IKvEngine>(StringComparer.Ordinal);
        try
        {
            foreach (var kind in engines)
            {
                readStores[kind.Name] = Preload(context, kind, data);
            }

            for (var run = 0; run < runs; run++)
            {
                var order = Rotation.For(engines, run);
                report.AddFact($"orderRun{run + 1}", string.Join(", ", order.Select(k => k.Name)));
                context.Progress($"run {run + 1} of {runs}, engines in the order {string.Join(", ", order.Select(k => k.Name))}");
                RunOnce(context, report, order, data, run, readStores, results);
            }
        }
        finally
        {
            foreach (var store in readStores.Values)
            {
                store.Dispose();
            }
        }

        report.AddFact("loadAverageAtEnd", LoadAverage());
        AddRows(report, results, engines);
        AddNotes(report);
        SealedTargets.AddSummary(report,
            $"durable writes ({string.Join(", ", WriteWorkloads)}, settled opsPerSec) {SealedTargets.Describe(SealedTargets.Writes)}; " +
            $"point reads and the scan ({string.Join(", ", Workloads.Except(WriteWorkloads))}) {SealedTargets.Describe(SealedTargets.Reads)}");
        report.AddNote(WriteCounters.Note(context.Device));
        return Task.FromResult(report);
    }

    /// <summary>One run of every workload, each for every engine in <paramref name="order"/> before the next workload.</summary>
    private static void RunOnce(ExperimentContext context, Report report, IReadOnlyList<KvEngineKind> order, KvDataSet data, int run,
        Dictionary<string, IKvEngine> readStores, List<KvRun> results)
    {
        foreach (var kind in order)
        {
            using var store = Fresh(context, kind, SeqInsert, run);
            results.Add(MeasureWrites(context, store, SeqInsert, [data.Sequential], run, data.Sequential));
            if (run == 0)
            {
                AddLeafFill(report, store, SeqInsert);
            }

            Discard(store);
        }

        foreach (var kind in order)
        {
            using var store = Fresh(context, kind, RandomInsert, run);
            results.Add(MeasureWrites(context, store, RandomInsert, data.RandomBatches, run, data.RandomInserts));
            Discard(store);
        }

        foreach (var (insert, read, batches, entries, reads) in new[]
                 {
                     (JsonInsert, JsonRead, data.JsonBatches, data.Json, data.JsonReads),
                     (OverflowInsert, OverflowRead, data.OverflowBatches, data.Overflow, data.OverflowReads),
                 })
        {
            var stores = new List<IKvEngine>();
            try
            {
                foreach (var kind in order)
                {
                    var store = Fresh(context, kind, insert, run);
                    stores.Add(store);
                    results.Add(MeasureWrites(context, store, insert, batches, run, entries));
                }

                foreach (var store in stores)
                {
                    results.Add(MeasureReads(context, store, read, reads, threads: 1, run));
                }
            }
            finally
            {
                foreach (var store in stores)
                {
                    store.Dispose();
                    Discard(store);
                }
            }
        }

        foreach (var (workload, threads) in new[] { (RandomRead1, 1), (RandomRead2, 2) })
        {
            foreach (var kind in order)
            {
                results.Add(MeasureReads(context, readStores[kind.Name], workload, data.ReadKeys, threads, run));
            }
        }

        foreach (var kind in order)
        {
            results.Add(MeasureScan(context, readStores[kind.Name], data.Count, run));
        }
    }

    /// <summary>The store the reads and the scan run on: the N small entries in a random order, in batches of 10,000, settled (untimed).</summary>
    private static IKvEngine Preload(ExperimentContext context, KvEngineKind kind, KvDataSet data)
    {
        context.Progress($"{kind.Name,-11} loading the read store: {data.Count:N0} entries in a random order (not timed)");
        var store = kind.Open(context.NewDirectory($"{kind.Name}-reads"), context.Disk);
        try
        {
            foreach (var batch in data.PreloadBatches)
            {
                store.WriteBatch(batch);
            }

            store.Settle();
            Verify(store, "the read store's load", data.Count, data.Sequential.Take(1000), data.MissingKey);
            return store;
        }
        catch
        {
            store.Dispose();
            throw;
        }
    }

    /// <summary>
    /// After a Voron store's in-order load (first run, untimed): how full its tree's pages are
    /// (BTree.MeasureOccupancy through <see cref="VoronSpace"/>, as the filesize
    /// experiment walks a store), as the fact <c>leafFill.&lt;engine&gt;.&lt;workload&gt;</c>.
    /// </summary>
    private static void AddLeafFill(Report report, IKvEngine store, string workload)
    {
        if (store.TreeOccupancy() is not { } occupancy)
        {
            return;
        }

        report.AddFact($"leafFill.{store.Name}.{workload}", occupancy);
    }

    private static IKvEngine Fresh(ExperimentContext context, KvEngineKind kind, string workload, int run) =>
        kind.Open(context.NewDirectory($"{kind.Name}-{workload}-r{run + 1}"), context.Disk);

    /// <summary>Deletes a disposed or disposing store's files: a full run would otherwise keep gigabytes.</summary>
    private static void Discard(IKvEngine store)
    {
        store.Dispose();
        if (Directory.Exists(store.Directory))
        {
            Directory.Delete(store.Directory, recursive: true);
        }
    }

    /// <summary>
    /// The 1, 5 and 15 minute load averages (Linux), so a reader can tell a run that shared the
    /// CPUs with other work.
    /// </summary>
    internal static string? LoadAverage() =>
        File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : null;

    private static void AddNotes(Report report)
    {
        report.AddNote("opsPerSec is the median over the runs, with minOpsPerSec and maxOpsPerSec; the engines' order rotates each run (orderRun1 ...). " +
                       "vsVoron, vsSqlite, vsSqliteMmap and vsLmdb divide this engine's median by that engine's for the same workload (vsVoron: voron-portable over the POSIX fast path).");
        report.AddNote("Write workloads: opsPerSec is settled: the clock stops once the engine has done the work its writes caused " +
                       "(Voron: the data-file flush of every journaled page, fdatasync and header; SQLite: PRAGMA wal_checkpoint(TRUNCATE), which writes the " +
                       "database file and fsyncs it; LMDB: nothing, its commits wrote in place). ackOpsPerSec stops the clock when the last commit returned. " +
                       "Every commit is durable; each run of a write workload starts on a fresh store.");
        report.AddNote("cpuUsPerOp (write workloads): the process's CPU time (Environment.CpuUsage: every thread) from the first write to the last commit's return, " +
                       "divided by the entries written; settledCpuUsPerOp runs until the engine settled (Voron's data-file flush, SQLite's checkpoint). " +
                       "Every thread counts: Voron's background flusher and merger are threads of this process, and so are the garbage collector's; " +
                       "LMDB's and SQLite's work all happens on the writing thread. cpuVsLmdb divides this engine's cpuUsPerOp by LMDB's for the same workload " +
                       "(below 1: less CPU per entry). allocBytesPerOp: managed bytes allocated by every thread until settled (GC.GetTotalAllocatedBytes; " +
                       "native allocations, SQLite's and LMDB's, are not counted), per entry, the workload's own batches built before the clock started.");
        report.AddNote("bytesWrittenPerOp: bytes the process handed to write calls during the workload (its settle included), per operation. " +
                       "onDiskMiB: every file of the store after the workload (Voron's preallocated journal files, SQLite's WAL and shared-memory index, LMDB's lock file included).");
        report.AddNote("Reads: every reader (one per thread, each a read transaction; SQLite: a connection of its own with a deferred transaction) reads the whole " +
                       "store once before the clock starts, so every engine starts warm (the data fits in memory for every engine). SQLite rows go through " +
                       "Microsoft.Data.Sqlite: a command execution and a data reader per point read are part of the figure. sqlite-mmap sets mmap_size as a user tuning reads would.");
        report.AddNote($"{RandomInsert} commits N/{KvDataSet.RandomInsertDivisor} entries in transactions of {KvDataSet.InsertBatchSize}: commits per second " +
                       "times fdatasyncMedianMs / 1000 near 1 means flush-bound (LMDB flushes twice per commit, SQLite's fsync is fsyncAppendMedianMs).");
    }
}
