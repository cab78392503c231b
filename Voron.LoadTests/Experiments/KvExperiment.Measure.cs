using System.Runtime.ExceptionServices;
using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Experiments;

internal sealed partial class KvExperiment
{
    /// <summary>
    /// Writes <paramref name="batches"/> (one durable transaction each), then settles the engine:
    /// the acknowledged time stops after the last commit, the settled time after the settle. Then,
    /// untimed, checks that the store holds every entry of <paramref name="entries"/>.
    /// </summary>
    private static KvRun MeasureWrites(ExperimentContext context, IKvEngine engine, string workload, IReadOnlyList<KvWrite>[] batches, int run,
        KvWrite[] entries)
    {
        context.Progress($"{engine.Name,-11} {workload} ...");
        Collect();
        var before = WriteCounters.Read(context.Device);
        var cost = ProcessCost.Start();
        var start = Stopwatch.GetTimestamp();
        foreach (var batch in batches)
        {
            engine.WriteBatch(batch);
        }

        var acknowledged = Stopwatch.GetElapsedTime(start).TotalSeconds;
        var acknowledgedCost = cost.Stop();
        engine.Settle();
        var settled = Stopwatch.GetElapsedTime(start).TotalSeconds;
        var settledCost = cost.Stop();
        var io = WriteCounters.Read(context.Device) - before;
        var result = new KvRun(engine.Name, workload, run, entries.Length, settled, acknowledged, io,
            entries.Sum(e => e.UserBytes), StoreSize.Of(engine.Directory), acknowledgedCost, settledCost);
        Print(context, result);
        var step = Math.Max(1, entries.Length / 1000);
        Verify(engine, workload, entries.Length, entries.Where((_, i) => i % step == 0), KvDataSet.Key(long.MaxValue));
        return result;
    }

    /// <summary>Point reads each reader makes, untimed, after its warm-up scan: the code path the clock will time, run first.</summary>
    private const int JitWarmUpReads = 2_000;

    /// <summary>
    /// Point reads of <paramref name="keys"/> split over <paramref name="threads"/> threads, each
    /// with its own reader opened on that thread and warmed (<see cref="IKvReader.WarmUp"/>) before
    /// the clock starts. The time is the wall time from releasing all threads together to the last
    /// one finishing; every key must be found.
    /// </summary>
    private static KvRun MeasureReads(ExperimentContext context, IKvEngine engine, string workload, byte[][] keys, int threads, int run)
    {
        context.Progress($"{engine.Name,-11} {workload} ...");
        Collect();

        var found = new long[threads];
        var finished = new long[threads];
        var errors = new Exception?[threads];
        using var ready = new CountdownEvent(threads);
        using var go = new ManualResetEventSlim();
        var workers = new Thread[threads];
        for (var t = 0; t < threads; t++)
        {
            var index = t;
            var from = (int)((long)keys.Length * index / threads);
            var to = (int)((long)keys.Length * (index + 1) / threads);
            workers[t] = new Thread(() => ReadShare(index, from, to))
            {
                IsBackground = true,
                Name = $"kv-{engine.Name}-reader-{index}",
            };
            workers[t].Start();
        }

        ready.Wait();
        var start = Stopwatch.GetTimestamp();
        go.Set();
        foreach (var worker in workers)
        {
            worker.Join();
        }

        foreach (var error in errors)
        {
            if (error != null)
            {
                ExceptionDispatchInfo.Throw(error);
            }
        }

        if (found.Sum() != keys.Length)
        {
            throw new InvalidOperationException($"{engine.Name}: {workload} found {found.Sum():N0} of {keys.Length:N0} keys.");
        }

        var result = new KvRun(engine.Name, workload, run, keys.Length, (double)(finished.Max() - start) / Stopwatch.Frequency);
        Print(context, result);
        return result;

        void ReadShare(int index, int from, int to)
        {
            try
            {
                IKvReader? reader = null;
                try
                {
                    reader = engine.OpenReader();
                    reader.WarmUp();
                    for (var i = from; i < Math.Min(to, from + JitWarmUpReads); i++)
                    {
                        reader.TryGet(keys[i], out _); // the timed path, compiled and tiered before the clock starts
                    }
                }
                finally
                {
                    ready.Signal();
                }

                using (reader)
                {
                    go.Wait();
                    long hits = 0;
                    for (var i = from; i < to; i++)
                    {
                        if (reader.TryGet(keys[i], out _))
                        {
                            hits++;
                        }
                    }

                    finished[index] = Stopwatch.GetTimestamp();
                    found[index] = hits;
                }
            }
#pragma warning disable CA1031 // Any failure on a reader thread is carried back and rethrown on the experiment's thread.
            catch (Exception e)
#pragma warning restore CA1031
            {
                errors[index] = e;
            }
        }
    }

    /// <summary>A full scan in key order, after one untimed scan that warms the same path.</summary>
    private static KvRun MeasureScan(ExperimentContext context, IKvEngine engine, long count, int run)
    {
        context.Progress($"{engine.Name,-11} {Scan} ...");
        engine.ScanAll();
        Collect();
        var start = Stopwatch.GetTimestamp();
        var scanned = engine.ScanAll();
        var seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        if (scanned != count)
        {
            throw new InvalidOperationException($"{engine.Name}: the scan found {scanned:N0} entries, expected {count:N0}.");
        }

        var result = new KvRun(engine.Name, Scan, run, scanned, seconds);
        Print(context, result);
        return result;
    }

    private static void Collect()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
    }

    private static void Print(ExperimentContext context, KvRun result)
    {
        var acknowledged = result.AcknowledgedSeconds is { } ack ? $" (acknowledged in {ack:F2} s = {result.Operations / ack:N0} ops/s)" : "";
        var cpu = result.AcknowledgedCost is { } cost ? $", {cost.CpuMicrosecondsPer(result.Operations):F1} µs CPU/op" : "";
        context.Progress($"{result.Engine,-11} {result.Workload}: {result.Operations:N0} ops in {result.Seconds:F2} s = {result.OpsPerSec:N0} ops/s{acknowledged}{cpu}");
    }

    /// <summary>
    /// A cheap check that the writes took: the store scans to <paramref name="count"/> entries,
    /// finds each of <paramref name="sample"/> with a value of its length, and not <paramref name="missing"/>.
    /// </summary>
    private static void Verify(IKvEngine engine, string workload, long count, IEnumerable<KvWrite> sample, byte[] missing)
    {
        var scanned = engine.ScanAll();
        if (scanned != count)
        {
            throw new InvalidOperationException($"{engine.Name}: after {workload} the scan found {scanned:N0} entries, expected {count:N0}.");
        }

        using var reader = engine.OpenReader();
        foreach (var entry in sample)
        {
            if (!reader.TryGet(entry.Key, out var length) || length != entry.Value!.Length)
            {
                throw new InvalidOperationException(
                    $"{engine.Name}: after {workload} key {Convert.ToHexString(entry.Key)} is missing or its value is not {entry.Value!.Length} bytes.");
            }
        }

        if (reader.TryGet(missing, out _))
        {
            throw new InvalidOperationException($"{engine.Name}: after {workload} a key never written ({Convert.ToHexString(missing)}) was found.");
        }
    }

    private static void AddRows(Reporting.Report report, List<KvRun> results, IReadOnlyList<KvEngineKind> engines)
    {
        var medians = results.GroupBy(r => (r.Engine, r.Workload)).ToDictionary(g => g.Key, g => Summary(g, r => r.OpsPerSec).Median);
        var cpu = results.Where(r => r.AcknowledgedCost != null).GroupBy(r => (r.Engine, r.Workload))
            .ToDictionary(g => g.Key, g => Summary(g, r => r.AcknowledgedCost!.Value.CpuMicrosecondsPer(r.Operations)!.Value).Median);
        foreach (var workload in Workloads)
        {
            foreach (var kind in engines)
            {
                var runs = results.Where(r => r.Engine == kind.Name && r.Workload == workload).ToList();
                if (runs.Count == 0)
                {
                    continue;
                }

                var rate = Summary(runs, r => r.OpsPerSec);
                var writes = runs[0].AcknowledgedSeconds != null;
                var sealedCells = kind.UnsealedTwin is { } twin
                    ? SealedTargets.Cells(twin, medians.TryGetValue((twin, workload), out var unsealed) ? unsealed : null, rate.Median,
                        writes ? SealedTargets.Writes : SealedTargets.Reads)
                    : [];
                report.AddRow([
                    ("engine", kind.Name),
                    ("label", kind.Label),
                    ("workload", workload),
                    ("runs", runs.Count),
                    ("ops", runs[0].Operations),
                    ("opsPerSec", rate.Median),
                    ("minOpsPerSec", rate.Min),
                    ("maxOpsPerSec", rate.Max),
                    ("ackOpsPerSec", writes ? Summary(runs, r => r.Operations / r.AcknowledgedSeconds!.Value).Median : null),
                    ("bytesWrittenPerOp", writes ? Median(runs, r => r.Io.HandedToWrite, r => r.Operations) : null),
                    ("writeAmplification", writes ? Median(runs, r => r.Io.HandedToWrite, r => r.UserBytes) : null),
                    ("storageWriteAmplification", writes ? Median(runs, r => r.Io.ToStorage, r => r.UserBytes) : null),
                    ("deviceWriteAmplification", writes ? Median(runs, r => r.Io.ToDevice, r => r.UserBytes) : null),
                    ("onDiskMiB", writes ? Summary(runs, r => StoreSize.MiB(r.OnDiskBytes)).Median : null),
                    ("cpuUsPerOp", writes ? Summary(runs, r => r.AcknowledgedCost!.Value.CpuMicrosecondsPer(r.Operations)!.Value).Median : null),
                    ("settledCpuUsPerOp", writes ? Summary(runs, r => r.SettledCost!.Value.CpuMicrosecondsPer(r.Operations)!.Value).Median : null),
                    ("allocBytesPerOp", writes ? Summary(runs, r => r.SettledCost!.Value.AllocatedBytesPer(r.Operations)!.Value).Median : null),
                    ("cpuVsLmdb", writes ? CpuRatio(kind.Name, workload) : null),
                    ("vsVoron", kind.Name == KvEngineCatalog.Voron ? null : Ratio(kind.Name, KvEngineCatalog.Voron, workload)),
                    ("vsSqlite", Ratio(kind.Name, KvEngineCatalog.Sqlite, workload)),
                    ("vsSqliteMmap", Ratio(kind.Name, KvEngineCatalog.SqliteMmap, workload)),
                    ("vsLmdb", Ratio(kind.Name, KvEngineCatalog.Lmdb, workload)),
                    .. sealedCells]);
            }
        }

        double? CpuRatio(string engine, string workload) =>
            cpu.TryGetValue((KvEngineCatalog.Lmdb, workload), out var lmdb) && cpu.TryGetValue((engine, workload), out var mine) ? mine / lmdb : null;

        double? Ratio(string engine, string peer, string workload) =>
            medians.TryGetValue((peer, workload), out var other) && medians.TryGetValue((engine, workload), out var mine) ? mine / other : null;
    }

    /// <summary>The median over the runs of bytes / per, or null when the byte counter is not available.</summary>
    private static double? Median(List<KvRun> runs, Func<KvRun, long?> bytes, Func<KvRun, long> per) =>
        runs.All(r => bytes(r) != null) ? Summary(runs, r => bytes(r)!.Value / (double)per(r)).Median : null;

    private static RunSummary Summary(IEnumerable<KvRun> runs, Func<KvRun, double> of)
    {
        var summary = new RunSummary();
        foreach (var run in runs)
        {
            summary.Add(of(run));
        }

        return summary;
    }

    /// <summary>One engine's figures for one run of one workload.</summary>
    /// <param name="Seconds">For writes, until the engine settled; for reads, the wall time of the reads.</param>
    /// <param name="AcknowledgedSeconds">For writes, until the last commit returned; null for reads.</param>
    /// <param name="AcknowledgedCost">For writes, the process's CPU time and allocations until the last commit returned; null for reads.</param>
    /// <param name="SettledCost">For writes, the same until the engine settled; null for reads.</param>
    private sealed record KvRun(string Engine, string Workload, int Run, long Operations, double Seconds,
        double? AcknowledgedSeconds = null, WriteCounters Io = default, long UserBytes = 0, long OnDiskBytes = 0,
        ProcessCost? AcknowledgedCost = null, ProcessCost? SettledCost = null)
    {
        public double OpsPerSec => Operations / Seconds;
    }
}
