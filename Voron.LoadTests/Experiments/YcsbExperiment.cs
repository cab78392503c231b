using System.Diagnostics;
using Voron.LoadTests.Data;
using Voron.LoadTests.Engines;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Mixed reads and writes, YCSB's core workloads A, B and E (<see cref="YcsbWorkload"/>), on
/// every key-value engine, with a long-lived reader present: while a workload runs, another
/// thread holds a read transaction (a snapshot) open from start to end, reading a record every
/// 10 ms. That is what a report, a backup or a slow request does to an engine: Voron cannot copy
/// page versions that reader may still need to the data file, LMDB cannot reuse the pages it
/// sees, SQLite cannot checkpoint past its snapshot, so each run also reports how much the store
/// grew. The records are realistic JSON documents of 0.5–2 KiB (YCSB's are 1 KB), loaded once
/// per engine (untimed). One client thread runs the operations; each update or insert is a
/// durable transaction of its own, as a YCSB client issues them. Every workload runs
/// <c>--runs</c> times, the engines' order rotated; its time runs until the engine settled.
/// </summary>
internal sealed class YcsbExperiment : IExperiment
{
    internal const int Seed = 20_100_610;
    private const int MinBytes = 512;
    private const int MaxBytes = 2048;
    private static readonly TimeSpan ReaderInterval = TimeSpan.FromMilliseconds(10);

    private readonly int? _records;
    private readonly int? _runs;
    private readonly IReadOnlyList<string>? _engines;

    /// <param name="records">Records loaded; default 100,000 (5,000 with --quick).</param>
    /// <param name="runs">Runs of each workload; default 5 (2 with --quick).</param>
    /// <param name="engines">The engines to run; all by default.</param>
    public YcsbExperiment(int? records = null, int? runs = null, IReadOnlyList<string>? engines = null)
    {
        _records = records;
        _runs = runs;
        _engines = engines;
    }

    public string Name => "ycsb";

    public string Description => "YCSB A (50/50), B (95/5) and E (short scans) on every key-value engine with a long-lived reader present; store growth";

    public Task<Report> RunAsync(ExperimentContext context)
    {
        var records = _records ?? (context.Quick ? 5_000 : 100_000);
        var runs = _runs ?? (context.Quick ? 2 : 5);
        var operations = new Dictionary<string, int>
        {
            [YcsbWorkload.A] = context.Quick ? 500 : 10_000,
            [YcsbWorkload.B] = context.Quick ? 2_000 : 40_000,
            [YcsbWorkload.E] = context.Quick ? 500 : 10_000,
        };
        var report = context.NewReport(Name, "YCSB A, B and E with a long-lived reader present");
        DiskBaseline.AddTo(report, context);
        report.AddFact("records", records);
        report.AddFact("recordBytes", $"{MinBytes}-{MaxBytes} (realistic JSON documents)");
        report.AddFact("runs", runs);
        report.AddFact("operations", string.Join(", ", operations.Select(o => $"{o.Key} {o.Value:N0}")));
        report.AddFact("requestDistribution", $"scrambled zipfian, theta {Zipfian.YcsbTheta}");
        report.AddFact("clientThreads", 1);
        report.AddFact("longLivedReader", $"a read transaction held for the whole run, reading a record every {ReaderInterval.TotalMilliseconds} ms");

        var engines = KvEngineCatalog.Available(context, report, _engines);
        context.Progress($"building {records:N0} records");
        var documents = new RealisticJson(Seed);
        var values = Enumerable.Range(0, records).Select(_ => documents.Next(MinBytes, MaxBytes)).ToArray();
        var newValues = Enumerable.Range(0, 2_000).Select(_ => documents.Next(MinBytes, MaxBytes)).ToArray();

        var stores = new Dictionary<string, IKvEngine>(StringComparer.Ordinal);
        var results = new List<YcsbRun>();
        try
        {
            foreach (var kind in engines)
            {
                context.Progress($"{kind.Name,-11} loading {records:N0} records (not timed)");
                var store = kind.Open(context.NewDirectory($"ycsb-{kind.Name}"), context.Disk);
                stores[kind.Name] = store;
                foreach (var batch in Enumerable.Range(0, records).Chunk(1_000))
                {
                    store.WriteBatch([.. batch.Select(i => KvWrite.Put(YcsbWorkload.Key(i), values[i]))]);
                }

                store.Settle();
            }

            long nextRecord = records;
            for (var run = 0; run < runs; run++)
            {
                var order = Rotation.For(engines, run);
                report.AddFact($"orderRun{run + 1}", string.Join(", ", order.Select(k => k.Name)));
                foreach (var name in YcsbWorkload.Names)
                {
                    var workload = YcsbWorkload.Create(name, operations[name], records, nextRecord, Seed + (run * 10) + Array.IndexOf(YcsbWorkload.Names, name));
                    nextRecord += workload.Operations.Count(o => o.Kind == YcsbKind.Insert);
                    foreach (var kind in order)
                    {
                        results.Add(Measure(context, stores[kind.Name], workload, run, records, newValues));
                    }
                }
            }
        }
        finally
        {
            foreach (var store in stores.Values)
            {
                store.Dispose();
            }
        }

        AddRows(report, results, engines);
        report.AddNote("opsPerSec: the median over the runs (min and max beside it), the clock stopping once the engine settled after the last operation " +
                       "(Voron's data-file flush, SQLite's checkpoint) and the long-lived reader ended; ackOpsPerSec stops it at the last operation.");
        report.AddNote("bytesWrittenPerWrite: bytes handed to write calls during a run (its settle included) per update or insert; writeAmplification: " +
                       "those bytes over the keys and values the run wrote (see the note on bytes written).");
        report.AddNote(WriteCounters.Note(context.Device));
        report.AddNote("readP99Ms, writeP99Ms (updates, inserts) and scanP99Ms: latency of each kind of operation, pooled over the runs. " +
                       "growthMiB: how much the store's files grew during a run (median), with the long-lived reader holding its snapshot.");
        return Task.FromResult(report);
    }

    private static YcsbRun Measure(ExperimentContext context, IKvEngine engine, YcsbWorkload workload, int run, long records, byte[][] newValues)
    {
        context.Progress($"{engine.Name,-11} {workload.Name} ({workload.Operations.Length:N0} operations) ...");
        GC.Collect();
        GC.WaitForPendingFinalizers();
        var sizeBefore = StoreSize.Of(engine.Directory);
        using var stop = new ManualResetEventSlim();
        using var readerOpen = new ManualResetEventSlim();
        Exception? readerError = null;
        var longReader = new Thread(() =>
        {
            try
            {
                using var reader = engine.OpenReader();
                readerOpen.Set();
                var random = new Random(run);
                while (!stop.Wait(ReaderInterval))
                {
                    reader.TryGet(YcsbWorkload.Key(random.NextInt64(records)), out _);
                }
            }
#pragma warning disable CA1031 // Carried back to the experiment's thread and rethrown there.
            catch (Exception e)
#pragma warning restore CA1031
            {
                readerError = e;
                readerOpen.Set();
            }
        })
        {
            IsBackground = true,
            Name = "ycsb long-lived reader",
        };
        longReader.Start();
        readerOpen.Wait();

        var reads = new LatencySample();
        var writes = new LatencySample();
        var scans = new LatencySample();
        long userBytes = 0;
        var written = WriteCounters.Read(context.Device);
        var start = Stopwatch.GetTimestamp();
        using (var client = engine.OpenReader())
        {
            // Every operation is a request of its own: the client's reader starts a new snapshot
            // before each (IKvReader.Refresh), so it sees every earlier write and pins nothing, while
            // keeping its connection (SQLite) and its page cache, as a pooled connection would.
            var valueIndex = run * 7919;
            foreach (var operation in workload.Operations)
            {
                var at = Stopwatch.GetTimestamp();
                switch (operation.Kind)
                {
                    case YcsbKind.Read:
                        client.Refresh();
                        client.TryGet(YcsbWorkload.Key(operation.Record), out _);
                        reads.AddTicks(Stopwatch.GetTimestamp() - at);
                        break;
                    case YcsbKind.Scan:
                        client.Refresh();
                        client.Scan(YcsbWorkload.Key(operation.Record), operation.ScanLength);
                        scans.AddTicks(Stopwatch.GetTimestamp() - at);
                        break;
                    default:
                        var write = KvWrite.Put(YcsbWorkload.Key(operation.Record), newValues[valueIndex++ % newValues.Length]);
                        engine.WriteBatch([write]);
                        userBytes += write.UserBytes;
                        writes.AddTicks(Stopwatch.GetTimestamp() - at);
                        break;
                }
            }
        }

        var acknowledged = Stopwatch.GetElapsedTime(start).TotalSeconds;
        var sizeDuring = StoreSize.Of(engine.Directory);
        stop.Set();
        longReader.Join();
        if (readerError != null)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(readerError);
        }

        engine.Settle();
        var settled = Stopwatch.GetElapsedTime(start).TotalSeconds;
        written = WriteCounters.Read(context.Device) - written;
        var result = new YcsbRun(engine.Name, workload.Name, run, workload.Operations.Length, settled, acknowledged, reads, writes, scans, sizeDuring - sizeBefore,
            written, userBytes);
        context.Progress($"{engine.Name,-11} {workload.Name}: {result.Operations / settled:N0} ops/s settled ({result.Operations / acknowledged:N0} acknowledged), " +
                         $"read p99 {reads.Percentile(99):F3} ms, write p99 {writes.Percentile(99):F3} ms, grew {StoreSize.MiB(result.GrowthBytes):F1} MiB");
        return result;
    }

    private static void AddRows(Report report, List<YcsbRun> results, List<KvEngineKind> engines)
    {
        var medians = results.GroupBy(r => (r.Engine, r.Workload)).ToDictionary(g => g.Key, g => Summary(g, r => r.Operations / r.Seconds).Median);
        foreach (var workload in YcsbWorkload.Names)
        {
            foreach (var kind in engines)
            {
                var runs = results.Where(r => r.Engine == kind.Name && r.Workload == workload).ToList();
                if (runs.Count == 0)
                {
                    continue;
                }

                var rate = Summary(runs, r => r.Operations / r.Seconds);
                report.AddRow(
                    ("engine", kind.Name),
                    ("label", kind.Label),
                    ("workload", workload),
                    ("runs", runs.Count),
                    ("ops", runs[0].Operations),
                    ("opsPerSec", rate.Median),
                    ("minOpsPerSec", rate.Min),
                    ("maxOpsPerSec", rate.Max),
                    ("ackOpsPerSec", Summary(runs, r => r.Operations / r.AcknowledgedSeconds).Median),
                    ("readP99Ms", Pooled(runs, r => r.Reads)),
                    ("writeP99Ms", Pooled(runs, r => r.Writes)),
                    ("scanP99Ms", Pooled(runs, r => r.Scans)),
                    ("growthMiB", Summary(runs, r => StoreSize.MiB(r.GrowthBytes)).Median),
                    ("bytesWrittenPerWrite", runs.All(r => r.Written.HandedToWrite != null && r.UserBytes > 0)
                        ? Summary(runs, r => r.Written.HandedToWrite!.Value / (double)r.Writes.Count).Median
                        : null),
                    ("writeAmplification", runs.All(r => r.Written.HandedToWrite != null && r.UserBytes > 0)
                        ? Summary(runs, r => r.Written.HandedToWrite!.Value / (double)r.UserBytes).Median
                        : null),
                    ("vsSqlite", Ratio(kind.Name, KvEngineCatalog.Sqlite, workload)),
                    ("vsSqliteMmap", Ratio(kind.Name, KvEngineCatalog.SqliteMmap, workload)),
                    ("vsLmdb", Ratio(kind.Name, KvEngineCatalog.Lmdb, workload)));
            }
        }

        double? Ratio(string engine, string peer, string workload) =>
            medians.TryGetValue((peer, workload), out var other) && medians.TryGetValue((engine, workload), out var mine) ? mine / other : null;
    }

    private static double? Pooled(List<YcsbRun> runs, Func<YcsbRun, LatencySample> of)
    {
        var all = new LatencySample();
        runs.ForEach(r => all.AddAll(of(r)));
        return all.Count == 0 ? null : all.Percentile(99);
    }

    private static RunSummary Summary(IEnumerable<YcsbRun> runs, Func<YcsbRun, double> of)
    {
        var summary = new RunSummary();
        foreach (var run in runs)
        {
            summary.Add(of(run));
        }

        return summary;
    }

    private sealed record YcsbRun(string Engine, string Workload, int Run, int Operations, double Seconds, double AcknowledgedSeconds,
        LatencySample Reads, LatencySample Writes, LatencySample Scans, long GrowthBytes, WriteCounters Written, long UserBytes);
}
