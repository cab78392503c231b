using Voron.LoadTests.Data;
using Voron.LoadTests.Capabilities;

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
/// durable transaction of its own, as a YCSB client issues them: a scenario of one copy, each
/// operation an invocation and a step named after its kind. Every workload runs <c>--runs</c>
/// times, the engines' order rotated; its time runs until the engine settled.
/// </summary>
internal sealed class YcsbExperiment : IExperiment
{
    internal const int Seed = 20_100_610;
    private const int MinBytes = 512;
    private const int MaxBytes = 2048;
    private static readonly TimeSpan ReaderInterval = TimeSpan.FromMilliseconds(10);

    /// <summary>A run ends when its workload's operations are done; this only bounds it (the load model's phases are timed).</summary>
    private static readonly TimeSpan MaxRunTime = TimeSpan.FromMinutes(30);

    internal const string ReadStep = "read";
    internal const string WriteStep = "write";
    internal const string ScanStep = "scan";
    internal const string OpenStep = "open reader";

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

    public async Task<Report> RunAsync(ExperimentContext context)
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
                        results.Add(await MeasureAsync(context, report, stores[kind.Name], workload, run, records, newValues).ConfigureAwait(false));
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
        report.AddNote("readP99Ms, writeP99Ms (updates, inserts) and scanP99Ms: latency of each kind of operation (a step of the run's scenario), the median over the runs of each run's p99. " +
                       "growthMiB: how much the store's files grew during a run (median), with the long-lived reader holding its snapshot.");
        return report;
    }

    /// <summary>
    /// One engine's run of one workload, as a scenario: one copy on a thread of its own (the engines'
    /// APIs block) invokes it once per operation, in the workload's order, each operation a step
    /// named after its kind (<see cref="ReadStep"/>, <see cref="WriteStep"/>, <see cref="ScanStep"/>);
    /// the last one ends the run. The settle (inside the measured span) ends the long-lived reader
    /// and settles the engine.
    /// </summary>
    private static async Task<YcsbRun> MeasureAsync(ExperimentContext context, Report report, IKvEngine engine, YcsbWorkload workload, int run, long records,
        byte[][] newValues)
    {
        context.Progress($"{engine.Name,-11} {workload.Name} ({workload.Operations.Length:N0} operations) ...");
        GC.Collect();
        GC.WaitForPendingFinalizers();
        var sizeBefore = StoreSize.Of(engine.Directory);
        var sizeDuring = 0L;
        using var stop = new ManualResetEventSlim();
        using var readerOpen = new ManualResetEventSlim();
        using var done = new CancellationTokenSource();
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

        long userBytes = 0;
        var valueIndex = run * 7919;
        var operations = workload.Operations;
        var scenario = Scenario.Create(engine.Name, async copy =>
            {
                // Every operation is a request of its own: the client's reader starts a new snapshot
                // before each (IKvReader.Refresh), so it sees every earlier write and pins nothing, while
                // keeping its connection (SQLite) and its page cache, as a pooled connection would. It is
                // opened and disposed on the copy's thread (IKvReader's rule), in a step of its own so
                // that no operation's latency holds it.
                if (copy.State == null)
                {
                    await Step.Run(OpenStep, copy, () =>
                    {
                        copy.State = engine.OpenReader();
                        return ValueTask.FromResult(Response.Ok());
                    }).ConfigureAwait(false);
                }

                var client = (IKvReader)copy.State!;
                var operation = operations[copy.InvocationNumber];
                var response = operation.Kind switch
                {
                    YcsbKind.Read => await Step.Run(ReadStep, copy, () =>
                    {
                        client.Refresh();
                        client.TryGet(YcsbWorkload.Key(operation.Record), out var length);
                        return ValueTask.FromResult(Response.Ok(sizeBytes: length));
                    }).ConfigureAwait(false),
                    YcsbKind.Scan => await Step.Run(ScanStep, copy, () =>
                    {
                        client.Refresh();
                        return ValueTask.FromResult(Response.Ok(sizeBytes: client.Scan(YcsbWorkload.Key(operation.Record), operation.ScanLength)));
                    }).ConfigureAwait(false),
                    _ => await Step.Run(WriteStep, copy, () =>
                    {
                        var write = KvWrite.Put(YcsbWorkload.Key(operation.Record), newValues[valueIndex++ % newValues.Length]);
                        engine.WriteBatch([write]);
                        userBytes += write.UserBytes;
                        return ValueTask.FromResult(Response.Ok(sizeBytes: write.UserBytes));
                    }).ConfigureAwait(false),
                };

                if (copy.InvocationNumber == operations.Length - 1)
                {
                    client.Dispose();
                    copy.State = null;
                    await done.CancelAsync().ConfigureAwait(false); // the workload is done: the run ends after this invocation
                }

                return response;
            })
            .WithInit(cancellation =>
            {
                longReader.Start();
                readerOpen.Wait(cancellation);
                return Task.CompletedTask;
            })
            .WithSettle(() =>
            {
                sizeDuring = StoreSize.Of(engine.Directory);
                stop.Set();
                longReader.Join();
                if (readerError != null)
                {
                    System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(readerError);
                }

                engine.Settle();
            })
            .WithLoadSimulations(Simulation.KeepConstant(1, MaxRunTime))
            .WithThreadPerCopy();

        var written = WriteCounters.Read(context.Device);
        var stats = await LoadRunner.RunAsync(scenario, new LoadRunOptions { Progress = context.Output, ProgressPrefix = $"{workload.Name} " }, done.Token)
            .ConfigureAwait(false);
        written = WriteCounters.Read(context.Device) - written;
        if (stats.AllFailCount > 0 || stats.AllRequestCount != operations.Length)
        {
            var failures = string.Join("; ", stats.StatusCodes.Where(s => s.IsError).Select(s => $"{s.Count:N0} x {s.StatusCode}: {s.Message}"));
            throw new InvalidOperationException($"{engine.Name} {workload.Name}: {stats.AllOkCount:N0} of {operations.Length:N0} operations ok " +
                                                $"({(failures.Length > 0 ? failures : $"not done within {MaxRunTime.TotalMinutes} minutes")}).");
        }

        report.AddScenario(engine.Name, workload.Name, run + 1, stats);
        var result = new YcsbRun(engine.Name, workload.Name, run, operations.Length, stats.Seconds, stats.Seconds - stats.SettleSeconds, stats,
            sizeDuring - sizeBefore, written, userBytes);
        context.Progress($"{engine.Name,-11} {workload.Name}: {result.Operations / result.Seconds:N0} ops/s settled ({result.Operations / result.AcknowledgedSeconds:N0} acknowledged), " +
                         $"read p99 {result.P99Ms(ReadStep):F3} ms, write p99 {result.P99Ms(WriteStep):F3} ms, grew {StoreSize.MiB(result.GrowthBytes):F1} MiB");
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
                    ("readP99Ms", MedianP99(runs, ReadStep)),
                    ("writeP99Ms", MedianP99(runs, WriteStep)),
                    ("scanP99Ms", MedianP99(runs, ScanStep)),
                    ("growthMiB", Summary(runs, r => StoreSize.MiB(r.GrowthBytes)).Median),
                    ("bytesWrittenPerWrite", runs.All(r => r.Written.HandedToWrite != null && r.UserBytes > 0)
                        ? Summary(runs, r => r.Written.HandedToWrite!.Value / (double)r.Stats.Step(WriteStep).Ok.Count).Median
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

    /// <summary>The median over the runs of each run's p99 of step <paramref name="step"/>; null when no run had one.</summary>
    private static double? MedianP99(List<YcsbRun> runs, string step)
    {
        var summary = new RunSummary();
        foreach (var p99 in runs.Select(r => r.P99Ms(step)).OfType<double>())
        {
            summary.Add(p99);
        }

        return summary.Runs == 0 ? null : summary.Median;
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

    /// <summary>One engine's run of one workload: <see cref="Seconds"/> until it settled, <see cref="AcknowledgedSeconds"/> until its last operation.</summary>
    private sealed record YcsbRun(string Engine, string Workload, int Run, int Operations, double Seconds, double AcknowledgedSeconds,
        ScenarioStats Stats, long GrowthBytes, WriteCounters Written, long UserBytes)
    {
        /// <summary>The p99 of step <paramref name="step"/>'s operations; null when the workload has none.</summary>
        public double? P99Ms(string step) =>
            Stats.Steps.FirstOrDefault(s => s.StepName == step) is { Ok.Count: > 0 } stats ? stats.Ok.Latency.P99Ms : null;
    }
}
