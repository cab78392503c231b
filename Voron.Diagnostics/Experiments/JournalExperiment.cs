using System.Diagnostics;
using Voron.LoadTests.Data;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;
using Voron.Platform.Posix;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// Journal size and write speed on our engine, in four journal modes — full pages, page diffs,
/// LZ4, diffs+LZ4 — run side by side, on realistic JSON documents of 0.5–4 KiB
/// (<see cref="JournalData"/>): <c>insert-seq</c> (keys in order), <c>insert-random</c> (random
/// keys), <c>update</c> (random documents of the random-key store updated). Every commit is
/// durable, 10 documents per transaction. Every byte is counted: the file system is wrapped
/// (<see cref="CountingFileSystem"/>) so the journal's zero pre-fill, the data file and the
/// headers are in the totals beside the journal records, and /proc/self/io gives what reached
/// storage.
/// </summary>
internal sealed class JournalExperiment : IExperiment
{
    internal static readonly (string Name, bool Diffs, bool Compression)[] Modes =
    [
        ("full-pages", false, false),
        ("diffs", true, false),
        ("lz4", false, true),
        ("diffs+lz4", true, true),
    ];

    internal const string InsertSequential = "insert-seq";
    internal const string InsertRandom = "insert-random";
    internal const string Update = "update";
    internal static readonly string[] Workloads = [InsertSequential, InsertRandom, Update];

    private const int OperationsPerTransaction = 10;
    private const int Slices = 20;
    private readonly int? _documents;

    /// <param name="documents">Documents per workload; default 20,000 (4,000 with --quick). Tests pass fewer.</param>
    public JournalExperiment(int? documents = null)
    {
        _documents = documents;
    }

    public string Name => "journal";

    public string Description => "journal and total bytes written and writes/s for realistic JSON inserts (sequential, random keys) and updates: full pages, diffs, LZ4, diffs+LZ4";

    public Task<Report> RunAsync(ExperimentContext context)
    {
        var documents = _documents ?? (context.Quick ? 4_000 : 20_000);
        var report = context.NewReport(Name, "Journal: page diffs and LZ4 against full pages, every byte counted");
        report.AddFact("durability", "durable: one journal write + fdatasync per transaction; each slice of a workload ends with a data-file flush (write + fdatasync + header)");
        report.AddFact("documents", documents);
        report.AddFact("documentBytes", $"{JournalData.MinBytes}-{JournalData.MaxBytes} (realistic JSON: Data/RealisticJson.cs)");
        report.AddFact("operationsPerTransaction", OperationsPerTransaction);

        context.Progress($"building {documents:N0} documents and {documents:N0} updates");
        var data = JournalData.Create(documents);
        report.AddFact("documentMeanBytes", data.Documents.Average(d => d.Length));

        // Each mode has a store for sequential keys and one for random keys (which the updates then
        // change). A workload is cut into slices, and every slice runs in every mode in turn, so a
        // noisy moment of the machine hits all modes alike.
        var stores = Modes.Select(m => (Sequential: Open(context, m, "seq"), Random: Open(context, m, "random"))).ToArray();
        var results = new List<(string Workload, string Mode, Stats Stats)>();
        try
        {
            foreach (var (workload, write) in new (string, Func<int, (byte[] Key, byte[] Value)>)[]
                     {
                         (InsertSequential, i => (data.SequentialKeys[i], data.Documents[i])),
                         (InsertRandom, i => (data.RandomKeys[i], data.Documents[i])),
                         (Update, i => (data.RandomKeys[data.Updates[i].Index], data.Updates[i].Document)),
                     })
            {
                context.Progress($"{workload}: {documents:N0} operations in each of {Modes.Length} modes, interleaved ...");
                var stats = Modes.Select(_ => new Stats { Io = WriteCounters.Zero(context.Device) }).ToArray();
                var slice = (documents + Slices - 1) / Slices;
                for (var from = 0; from < documents; from += slice)
                {
                    for (var m = 0; m < Modes.Length; m++)
                    {
                        var store = workload == InsertSequential ? stores[m].Sequential : stores[m].Random;
                        Measure(context, store, from, Math.Min(documents, from + slice), write, stats[m]);
                    }
                }

                for (var m = 0; m < Modes.Length; m++)
                {
                    stats[m].OnDiskBytes = StoreSize.Of((workload == InsertSequential ? stores[m].Sequential : stores[m].Random).Environment.Path);
                    results.Add((workload, Modes[m].Name, stats[m]));
                    context.Progress($"{workload,-13} {Modes[m].Name,-11}: {stats[m].JournalRecordBytes / (double)stats[m].Operations,8:N0} journal record bytes/op, " +
                                     $"{stats[m].AllBytes / (double)stats[m].Operations,8:N0} bytes written/op, {stats[m].OpsPerSecond,8:N0} ops/s");
                }
            }
        }
        finally
        {
            foreach (var (sequential, random) in stores)
            {
                sequential.Environment.Dispose();
                random.Environment.Dispose();
            }
        }

        foreach (var (workload, mode, stats) in results)
        {
            var full = results.First(r => r.Workload == workload && r.Mode == "full-pages").Stats;
            double PerOp(long bytes) => bytes / (double)stats.Operations;
            report.AddRow(
                ("workload", workload),
                ("mode", mode),
                ("transactions", stats.Transactions),
                ("journalBytesPerTx", stats.JournalRecordBytes / (double)stats.Transactions),
                ("journalBytesPerOp", PerOp(stats.JournalRecordBytes)),
                ("bytesVsFullPages", stats.JournalRecordBytes / (double)full.JournalRecordBytes),
                ("journalFileBytesPerOp", PerOp(stats.JournalFileBytes)),
                ("dataFileBytesPerOp", PerOp(stats.DataFileBytes)),
                ("allBytesPerOp", PerOp(stats.AllBytes)),
                ("allBytesVsFullPages", stats.AllBytes / (double)full.AllBytes),
                ("writeAmplification", stats.AllBytes / (double)stats.UserBytes),
                ("storageWriteAmplification", stats.Io.ToStorage / (double?)stats.UserBytes),
                ("deviceWriteAmplification", stats.Io.ToDevice / (double?)stats.UserBytes),
                ("onDiskMiB", StoreSize.MiB(stats.OnDiskBytes)),
                ("writesPerSec", stats.OpsPerSecond),
                ("writesVsFullPages", stats.OpsPerSecond / full.OpsPerSecond),
                ("compressionTimeShare", stats.CompressionShare));
        }

        report.AddNote("Targets: diffs alone cut journal bytes per operation by >= 37% for inserts and >= 80% for updates against full pages; " +
                       "diffs+LZ4 by >= 90% for updates; writes per second with diffs+LZ4 at least equal to full pages.");
        report.AddNote("journalBytesPerOp: the journal records (the engine's JournalBytesWritten). journalFileBytesPerOp: every byte written to journal files, " +
                       "the zeros the journal writes ahead of its records (J10) included. dataFileBytesPerOp: the data-file flushes. allBytesPerOp: every byte " +
                       "written to every file of the store (journal, data file, headers), counted by wrapping the file system; writeAmplification: that over the bytes " +
                       "of keys and documents written. storageWriteAmplification and deviceWriteAmplification: see the next note.");
        report.AddNote("writesPerSec counts the data-file flushes too: background flushing is off and every slice of 1/20 of the workload ends with a " +
                       "flush of the store it ran on, timed with the slice, so one mode's flush never runs during another mode's slice.");
        report.AddNote("onDiskMiB: every file of the store after the workload (the insert-seq store; the insert-random store, which the updates then change).");
        report.AddNote(WriteCounters.Note(context.Device));
        report.AddNote("compressionTimeShare: time spent encoding journal records (page diffs, LZ4, copying, checksums) divided by the wall time of the workload.");
        return Task.FromResult(report);
    }

    private static Store Open(ExperimentContext context, (string Name, bool Diffs, bool Compression) mode, string keys)
    {
        var directory = context.NewDirectory($"{mode.Name}-{keys}");
        var files = new CountingFileSystem(PosixFileSystem.Instance);
        var options = StorageEnvironmentOptions.ForFileSystem(directory, context.Disk.Wrap(files));
        options.JournalPageDiffs = mode.Diffs;
        options.JournalCompression = mode.Compression;
        options.BackgroundFlush = false; // each mode flushes its own data file at the end of its slices (Measure)
        return new Store(StorageEnvironment.Open(options), files);
    }

    private static void Measure(ExperimentContext context, Store store, int from, int to, Func<int, (byte[] Key, byte[] Value)> write, Stats stats)
    {
        var env = store.Environment;
        var bytesBefore = env.JournalBytesWritten;
        var encodeBefore = env.JournalEncodeTime;
        var (journalBefore, dataBefore, allBefore) = store.Written();
        var ioBefore = WriteCounters.Read(context.Device);
        var watch = Stopwatch.StartNew();
        for (var start = from; start < to; start += OperationsPerTransaction)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("docs");
            for (var i = start; i < Math.Min(to, start + OperationsPerTransaction); i++)
            {
                var (key, value) = write(i);
                tree.Put(key, value);
                stats.UserBytes += key.Length + value.Length;
            }

            tx.Commit();
            stats.Transactions++;
        }

        // The slice pays for the data-file flush its commits caused. With background flushing, one
        // store's flush would run during the next mode's slice and be charged to that mode.
        env.FlushToDataFile();
        stats.Seconds += watch.Elapsed.TotalSeconds;
        stats.Io += WriteCounters.Read(context.Device) - ioBefore;
        stats.EncodeSeconds += (env.JournalEncodeTime - encodeBefore).TotalSeconds;
        stats.Operations += to - from;
        stats.JournalRecordBytes += env.JournalBytesWritten - bytesBefore;
        var (journal, data, all) = store.Written();
        stats.JournalFileBytes += journal - journalBefore;
        stats.DataFileBytes += data - dataBefore;
        stats.AllBytes += all - allBefore;
    }

    /// <summary>One mode's store and its byte counter.</summary>
    private sealed record Store(StorageEnvironment Environment, CountingFileSystem Files)
    {
        public (long Journal, long Data, long All) Written() => (
            Files.BytesWritten(p => p.EndsWith(".journal", StringComparison.Ordinal)),
            Files.BytesWritten(p => p.EndsWith("voron.data", StringComparison.Ordinal)),
            Files.BytesWritten(_ => true));
    }

    private sealed class Stats
    {
        public int Operations { get; set; }

        public int Transactions { get; set; }

        public long JournalRecordBytes { get; set; }

        public long JournalFileBytes { get; set; }

        public long DataFileBytes { get; set; }

        public long AllBytes { get; set; }

        public long UserBytes { get; set; }

        public long OnDiskBytes { get; set; }

        public WriteCounters Io { get; set; }

        public double Seconds { get; set; }

        public double EncodeSeconds { get; set; }

        public double OpsPerSecond => Operations / Seconds;

        public double CompressionShare => EncodeSeconds / Seconds;
    }
}
