using Voron.LoadTests.Data;
using Voron.LoadTests.Measurement.Interop;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// How long a Voron store takes to open: one holding 1 GiB of data after a clean close, and the
/// same store after a crash that left a full journal to replay (64 MiB of records, one journal
/// file at the default size, and 256 MiB, four of them). Each open is timed warm (the files in
/// the OS page cache) and cold (this store's files dropped from the page cache with
/// posix_fadvise(DONTNEED), which needs no root and touches no other file), together with the
/// first 1,000 random point reads after it, which fault the pages in. A crash is simulated by
/// closing without the final flush (what a killed process leaves: every commit durable in the
/// journal, the data file behind), with background flushing off while the journal fills, so the
/// whole journal is left to replay. Each open works on a copy of the crashed store, so every
/// measurement replays the same journal.
/// </summary>
internal sealed class RecoveryExperiment : IExperiment
{
    private const int ValueMinBytes = 1024;
    private const int ValueMaxBytes = 3072;
    private const int Reads = 1_000;

    private readonly long? _dataBytes;
    private readonly long[]? _journalBytes;

    /// <param name="dataBytes">Bytes of values in the store; default 1 GiB (64 MiB with --quick).</param>
    /// <param name="journalBytes">Journal records a crash leaves, one crash each; default 64 and 256 MiB (4 and 16 MiB with --quick).</param>
    public RecoveryExperiment(long? dataBytes = null, long[]? journalBytes = null)
    {
        _dataBytes = dataBytes;
        _journalBytes = journalBytes;
    }

    public string Name => "recovery";

    public string Description => "open time of a Voron store with 1 GiB of data (clean) and after a crash with a full journal (64, 256 MiB), warm and cold";

    public Task<Report> RunAsync(ExperimentContext context)
    {
        var dataBytes = _dataBytes ?? (context.Quick ? 64L << 20 : 1L << 30);
        var journals = _journalBytes ?? (context.Quick ? [4L << 20, 16L << 20] : [64L << 20, 256L << 20]);
        var report = context.NewReport(Name, "Recovery: open time after a clean close and after a crash with a full journal");
        report.AddFact("dataMiB", dataBytes >> 20);
        report.AddFact("valueBytes", $"{ValueMinBytes}-{ValueMaxBytes} (realistic JSON documents)");
        report.AddFact("journalFileMiB", StorageEnvironmentOptions.CreateInMemory().JournalFileSize >> 20);
        report.AddFact("cold", "posix_fadvise(POSIX_FADV_DONTNEED) on every file of the store before the open");

        var store = context.NewDirectory("recovery-1gib");
        context.Progress($"building a store with {dataBytes >> 20:N0} MiB of values");
        var documents = new RealisticJson(20_261_202);
        var pool = Enumerable.Range(0, 2048).Select(_ => documents.Next(ValueMinBytes, ValueMaxBytes)).ToArray();
        var entries = Build(store, dataBytes, pool);
        report.AddFact("entries", entries);
        report.AddFact("storeMiB", StoreSize.MiB(StoreSize.Of(store)));

        foreach (var cold in new[] { false, true })
        {
            var copy = Copy(context, store, "clean");
            AddRow(report, context, "clean close", 0, copy, entries, cold);
        }

        var random = new Random(7);
        foreach (var journalBytes in journals)
        {
            var crashed = Copy(context, store, $"crashed-{journalBytes >> 20}");
            var written = Crash(crashed, journalBytes, entries, pool, random);
            foreach (var cold in new[] { false, true })
            {
                var copy = Copy(context, crashed, $"crashed-{journalBytes >> 20}-{(cold ? "cold" : "warm")}");
                AddRow(report, context, "crash, full journal", written, copy, entries, cold);
            }

            Directory.Delete(crashed, recursive: true);
        }

        report.AddNote("openMs: StorageEnvironment.Open to its return (headers, data-file map, replay of every journal record after the last flush, " +
                       "the replayed pages written to the data file and synced). firstReadsMs: then 1,000 point reads of random keys, which fault their pages in " +
                       "and check each page's checksum on first read.");
        report.AddNote("A crash here is a close without the final flush, after filling the journal with background flushing off: every record is durable, " +
                       "the data file holds none of them, so the open replays the whole journal; journalMiB is what it replayed.");
        Directory.Delete(store, recursive: true);
        return Task.FromResult(report);
    }

    /// <summary>Fills a store with about <paramref name="bytes"/> of values (keys 0, 1, ...) and closes it cleanly; returns the number of entries.</summary>
    private static long Build(string directory, long bytes, byte[][] pool)
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        long written = 0, key = 0;
        while (written < bytes)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("data");
            for (var i = 0; i < 1_000 && written < bytes; i++, key++)
            {
                var value = pool[key % pool.Length];
                tree.Put(KvDataSet.Key(key), value);
                written += value.Length;
            }

            tx.Commit();
        }

        return key;
    }

    /// <summary>Updates random entries until the journal holds <paramref name="journalBytes"/> of records, then closes without flushing: the crash.</summary>
    private static long Crash(string directory, long journalBytes, long entries, byte[][] pool, Random random)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.BackgroundFlush = false;
        var env = StorageEnvironment.Open(options);
        while (env.JournalBytesWritten < journalBytes)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("data");
            for (var i = 0; i < 100; i++)
            {
                tree.Put(KvDataSet.Key(random.NextInt64(entries)), pool[random.Next(pool.Length)]);
            }

            tx.Commit();
        }

        var written = env.JournalBytesWritten;
        env.CloseWithoutFlush();
        return written;
    }

    private static void AddRow(Report report, ExperimentContext context, string state, long journalBytes, string directory, long entries, bool cold)
    {
        if (cold && !PageCache.Evict(directory))
        {
            report.AddNote("Cold opens were skipped: posix_fadvise is not available here.");
            return;
        }

        var start = Stopwatch.GetTimestamp();
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        var open = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        var random = new Random(11);
        start = Stopwatch.GetTimestamp();
        using (var read = env.BeginRead())
        {
            var tree = read.OpenTree("data")!;
            for (var i = 0; i < Reads; i++)
            {
                if (!tree.TryGet(KvDataSet.Key(random.NextInt64(entries)), out _))
                {
                    throw new InvalidOperationException($"recovery: a key is missing after opening the {state} store.");
                }
            }
        }

        var reads = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        report.AddRow(
            ("state", state),
            ("cache", cold ? "cold" : "warm"),
            ("journalMiB", StoreSize.MiB(journalBytes)),
            ("storeMiB", StoreSize.MiB(StoreSize.Of(directory))),
            ("openMs", open),
            ("firstReadsMs", reads));
        context.Progress($"{state}, {(cold ? "cold" : "warm")}: open {open:F1} ms, first {Reads:N0} reads {reads:F1} ms (journal {StoreSize.MiB(journalBytes):F0} MiB)");
        env.Dispose();
        Directory.Delete(directory, recursive: true);
    }

    /// <summary>A copy of a closed store, synced (so its pages can be dropped from the cache), so each open replays the same files.</summary>
    private static string Copy(ExperimentContext context, string source, string name)
    {
        var target = context.NewDirectory(name);
        foreach (var file in Directory.EnumerateFiles(source, "*", SearchOption.AllDirectories))
        {
            var destination = Path.Combine(target, Path.GetRelativePath(source, file));
            Directory.CreateDirectory(Path.GetDirectoryName(destination)!);
            File.Copy(file, destination);
            using var stream = new FileStream(destination, FileMode.Open, FileAccess.ReadWrite);
            stream.Flush(flushToDisk: true);
        }

        return target;
    }
}
