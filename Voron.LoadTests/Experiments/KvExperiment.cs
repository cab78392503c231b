using System.Diagnostics;
using System.Globalization;
using Voron.LoadTests.Engines;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Key-value engines side by side in one process (<see cref="KvEngineCatalog"/>), on the
/// LevelDB/Symas benchmark shape: 8-byte keys, 100-byte values, N = 1,000,000 (50,000 with
/// --quick). Each workload runs for every engine before the next workload starts, each engine on
/// a store in a fresh directory of its own:
/// <list type="number">
/// <item><c>seq-insert-1tx</c>: the N keys in order, in one durable transaction (a store of its own).</item>
/// <item><c>random-insert-100</c>: the N keys in a random order, in durable transactions of 100.</item>
/// <item><c>random-read-1t</c>: every key once, in another random order, from one thread.</item>
/// <item><c>random-read-2t</c>: the same reads split over two threads running at once (wall time).</item>
/// <item><c>scan</c>: every entry in key order.</item>
/// </list>
/// The reads and the scan run on the store <c>random-insert-100</c> filled. After each insert
/// workload every store must scan to N entries and find a sample of its keys, or the run fails.
/// <c>--entries</c> or the environment variable <c>VORON_KV_N</c> sets another N.
/// </summary>
internal sealed partial class KvExperiment : IExperiment
{
    internal const int Seed = 20_261_121;

    internal const string SeqInsert = "seq-insert-1tx";
    internal const string RandomInsert = "random-insert-100";
    internal const string RandomRead1 = "random-read-1t";
    internal const string RandomRead2 = "random-read-2t";
    internal const string Scan = "scan";

    private readonly int? _entryCount;

    /// <param name="entryCount">
    /// N; by default 1,000,000, or 50,000 for a quick run. The command line passes <c>--entries</c>
    /// or <c>VORON_KV_N</c> (ExperimentCatalog); tests pass a tiny N.
    /// </param>
    public KvExperiment(int? entryCount = null)
    {
        if (entryCount is <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(entryCount), entryCount, "N must be positive.");
        }

        _entryCount = entryCount;
    }

    public string Name => "kv";

    public string Description => "key-value engines side by side: durable inserts (1 big / 100-item txns), random reads (1 and 2 threads), scan";

    public Task<Report> RunAsync(ExperimentContext context)
    {
        var count = _entryCount ?? (context.Quick ? 50_000 : 1_000_000);
        var report = new Report(Name, "Key-value engines side by side: durable inserts, point reads, scan");
        report.AddFact("entries", count);
        report.AddFact("keys", $"{KvDataSet.KeySize}-byte big-endian integers 0 .. N-1");
        report.AddFact("valueBytes", KvDataSet.ValueSize);
        report.AddFact("insertBatchSize", KvDataSet.InsertBatchSize);
        report.AddFact("seed", Seed.ToString(CultureInfo.InvariantCulture));
        report.AddFact("loadAverageAtStart", LoadAverage());

        var syncs = context.Quick ? 200 : 1000;
        context.Progress($"write+fdatasync of 4 KiB x {syncs}");
        var sync = MachineExperiment.MeasureDurableWrites(Path.Combine(context.DataDirectory, "fdatasync.bin"), 4096, syncs);
        report.AddFact("fdatasyncMedianMs", sync.Median);
        context.Progress($"fdatasync median {sync.Median:F3} ms");

        var engines = AvailableEngines(context, report);
        context.Progress($"building {count:N0} entries (seed {Seed})");
        var data = KvDataSet.Create(count, Seed);

        var results = new List<KvResult>();
        foreach (var kind in engines)
        {
            using var engine = kind.Open(context.NewDirectory($"{kind.Name}-seq"));
            results.Add(Measure(context, engine, SeqInsert, () =>
            {
                engine.InsertBatch(data.Sequential);
                return count;
            }));
            Verify(engine, data, SeqInsert);
        }

        var stores = new List<IKvEngine>();
        try
        {
            foreach (var kind in engines)
            {
                stores.Add(kind.Open(context.NewDirectory($"{kind.Name}-random")));
            }

            foreach (var store in stores)
            {
                results.Add(Measure(context, store, RandomInsert, () =>
                {
                    foreach (var batch in data.RandomBatches)
                    {
                        store.InsertBatch(batch);
                    }

                    return count;
                }));
                Verify(store, data, RandomInsert);
            }

            foreach (var threads in (int[])[1, 2])
            {
                foreach (var store in stores)
                {
                    results.Add(MeasureReads(context, store, threads == 1 ? RandomRead1 : RandomRead2, data.ReadKeys, threads));
                }
            }

            foreach (var store in stores)
            {
                results.Add(Measure(context, store, Scan, () =>
                {
                    var scanned = store.ScanAll();
                    return scanned == count
                        ? scanned
                        : throw new InvalidOperationException($"{store.Name}: the scan found {scanned:N0} entries, expected {count:N0}.");
                }));
            }
        }
        finally
        {
            foreach (var store in stores)
            {
                store.Dispose();
            }
        }

        report.AddFact("loadAverageAtEnd", LoadAverage());
        AddRows(report, results);
        report.AddNote("vsSqlite and vsLmdb: this engine's opsPerSec divided by that engine's for the same workload " +
                       "(empty when that engine did not run).");
        report.AddNote("Targets for Voron: random reads (random-read-1t, random-read-2t) at least 2x SQLite and at least 0.5x LMDB; " +
                       $"bulk sequential insert ({SeqInsert}) at least 1x SQLite.");
        report.AddNote($"Every insert is durable. {RandomInsert} makes N/{KvDataSet.InsertBatchSize} commits: commits per second " +
                       "times fdatasyncMedianMs / 1000 near 1 means flush-bound (LMDB syncs twice per commit).");
        report.AddNote("Readers each hold one read transaction for the whole run (SQLite: a deferred transaction on a " +
                       "connection of their own, whose page cache starts empty); the data fits in memory for every engine.");
        return Task.FromResult(report);
    }

    /// <summary>
    /// The 1, 5 and 15 minute load averages (Linux), so a reader can tell a run that shared the
    /// CPUs with other work: the read workloads are CPU-bound.
    /// </summary>
    private static string? LoadAverage() =>
        File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : null;

    /// <summary>The engines whose libraries load here; a missing one is printed, noted and left out.</summary>
    private static List<KvEngineKind> AvailableEngines(ExperimentContext context, Report report)
    {
        var available = new List<KvEngineKind>();
        foreach (var kind in KvEngineCatalog.All)
        {
            string version;
            try
            {
                version = kind.Probe();
            }
            catch (DllNotFoundException)
            {
                context.Output.WriteLine(kind.MissingLibraryNote);
                report.AddNote(kind.MissingLibraryNote);
                continue;
            }

            report.AddFact($"{kind.Name}Version", version);
            report.AddFact($"{kind.Name}Durability", kind.Durability);
            report.AddFact($"{kind.Name}Settings", kind.Settings);
            available.Add(kind);
        }

        return available.Count > 0
            ? available
            : throw new InvalidOperationException("No key-value engine can run on this machine.");
    }

    /// <summary>Times <paramref name="workload"/>, which returns how many operations it did.</summary>
    private static KvResult Measure(ExperimentContext context, IKvEngine engine, string workload, Func<long> run)
    {
        context.Progress($"{engine.Name,-7} {workload} ...");
        GC.Collect();
        GC.WaitForPendingFinalizers();
        var start = Stopwatch.GetTimestamp();
        var ops = run();
        var result = new KvResult(engine.Name, workload, ops, Stopwatch.GetElapsedTime(start).TotalSeconds);
        Report(context, result);
        return result;
    }

    private static void Report(ExperimentContext context, KvResult result) =>
        context.Progress($"{result.Engine,-7} {result.Workload}: {result.Ops:N0} ops in {result.Seconds:F2} s = {result.OpsPerSec:N0} ops/s");

    /// <summary>A cheap check that the inserts took: the store scans to N entries, finds a sample of keys with their values, and not a missing key.</summary>
    private static void Verify(IKvEngine engine, KvDataSet data, string workload)
    {
        var scanned = engine.ScanAll();
        if (scanned != data.Count)
        {
            throw new InvalidOperationException($"{engine.Name}: after {workload} the scan found {scanned:N0} entries, expected {data.Count:N0}.");
        }

        using var reader = engine.OpenReader();
        foreach (var key in data.VerifyKeys)
        {
            if (!reader.TryGet(key, out var length) || length != KvDataSet.ValueSize)
            {
                throw new InvalidOperationException(
                    $"{engine.Name}: after {workload} key {Convert.ToHexString(key)} is missing or its value is not {KvDataSet.ValueSize} bytes.");
            }
        }

        if (reader.TryGet(data.MissingKey, out _))
        {
            throw new InvalidOperationException($"{engine.Name}: after {workload} a key never inserted ({Convert.ToHexString(data.MissingKey)}) was found.");
        }
    }

    private static void AddRows(Report report, List<KvResult> results)
    {
        foreach (var result in results.OrderBy(r => WorkloadOrder(r.Workload)))
        {
            report.AddRow(
                ("engine", result.Engine),
                ("workload", result.Workload),
                ("ops", result.Ops),
                ("seconds", result.Seconds),
                ("opsPerSec", result.OpsPerSec),
                ("vsSqlite", Ratio(result, KvEngineCatalog.Sqlite)),
                ("vsLmdb", Ratio(result, KvEngineCatalog.Lmdb)));
        }

        double? Ratio(KvResult result, string peer) =>
            results.FirstOrDefault(r => r.Engine == peer && r.Workload == result.Workload) is { } other
                ? result.OpsPerSec / other.OpsPerSec
                : null;
    }

    private static int WorkloadOrder(string workload) =>
        Array.IndexOf([SeqInsert, RandomInsert, RandomRead1, RandomRead2, Scan], workload);
}
