using Voron.LoadTests.Data;
using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Operating a store: what a backup costs and what a restore takes. Three parts, each on its own
/// store:
/// <list type="number">
/// <item>Throughput (<c>BackupExperiment.Copy.cs</c>): a store built to a data file of
///   <c>--size</c> through the merger (untimed), closed; then, interleaved and repeated with the
///   order alternating, <c>cp</c> of its quiescent data file and headers followed by <c>sync</c> of the
///   copy, and <see cref="StorageEnvironment.BackupAsync"/> of the reopened store with
///   <see cref="BackupOptions.Verify"/> on and off: MB/s of data file, the ratio to cp, the
///   backup's writer pause.</item>
/// <item>Writers (<c>BackupExperiment.Writers.cs</c>): the same store under a closed load of merged
///   1 KiB puts, windows with no backup alternating with windows during which backups run back to
///   back: p50, p99 and ok requests per second of each, the p99 ratio.</item>
/// <item>Point-in-time restore (<c>BackupExperiment.Restore.cs</c>): a store archiving its journal
///   files (<see cref="StorageEnvironmentOptions.JournalArchiveDirectory"/>), a full backup at the
///   start, writes until <c>--archive</c> MiB of journal are archived, then
///   <see cref="StorageEnvironment.RestoreAsync"/> to the last archived transaction and to a time in
///   the middle: restore time, transactions replayed, journal MB/s.</item>
/// </list>
/// MB is 10^6 bytes throughout.
/// </summary>
internal sealed partial class BackupExperiment : IExperiment
{
    private const int Seed = 20_261_127;
    private const int MinValueBytes = 512;
    private const int MaxValueBytes = 4096;
    private const string BackupTree = "kv";
    private const double CpTarget = 0.5;
    private const double P99Target = 2.0;

    private readonly long? _dataFileBytes;
    private readonly TimeSpan? _window;
    private readonly int? _rounds;
    private readonly long? _archiveBytes;
    private readonly long? _journalFileSize;
    private readonly int _writers;

    /// <param name="dataFileBytes">The store's data file size to build to; default 1 GiB, 64 MiB with --quick.</param>
    /// <param name="window">Each writers' window; default 20 s, 5 s with --quick.</param>
    /// <param name="rounds">Rounds of each comparison; default 3.</param>
    /// <param name="archiveBytes">Archived journal to restore; default 64 MiB, 8 MiB with --quick.</param>
    /// <param name="journalFileSize">The restore store's journal file size; default 16 MiB, 2 MiB with --quick.</param>
    /// <param name="writers">Closed-load copies of the writers' windows; default 16.</param>
    public BackupExperiment(long? dataFileBytes = null, TimeSpan? window = null, int? rounds = null, long? archiveBytes = null, long? journalFileSize = null, int writers = 16)
    {
        _dataFileBytes = dataFileBytes;
        _window = window;
        _rounds = rounds;
        _archiveBytes = archiveBytes;
        _journalFileSize = journalFileSize;
        _writers = writers;
    }

    public string Name => "backup";

    public string Description => "hot backup against cp of the quiescent files (MB/s), writers' p99 during backups, point-in-time restore of archived journal";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var dataFileBytes = _dataFileBytes ?? (context.Quick ? 64L << 20 : 1L << 30);
        var window = _window ?? TimeSpan.FromSeconds(context.Quick ? 5 : 20);
        var rounds = _rounds ?? 3;
        var archiveBytes = _archiveBytes ?? (context.Quick ? 8L << 20 : 64L << 20);
        var journalFileSize = _journalFileSize ?? (context.Quick ? 2L << 20 : 16L << 20);

        var report = context.NewReport(Name, "Backup and restore: hot backup against cp, writers during a backup, point-in-time restore");
        report.GroupMarkdownBy("table");
        report.ShowGroupsFirst(ThroughputTable, WritersSummaryTable, RestoreTable);
        var voron = KvEngineCatalog.All.First(k => k.Name == KvEngineCatalog.Voron);
        report.AddFact("voronDurability", voron.Durability);
        report.AddFact("voronSettings", voron.Settings);
        report.AddFact("cpDurability", "cp of the closed store's data file and header copies, then sync FILE... of every copied file and the directory (fsync each): durable when the clock stops");
        report.AddFact("backupDurability", "BackupAsync writes the copy, (Verify: opens it and checks every page,) syncs it, then writes and syncs the manifest that makes the directory a backup: durable when it returns; its own syncs are timed");
        if (context.Disk.IsSimulated)
        {
            report.AddNote("SIMULATED DISK, except: the cp + sync baseline (other processes) and StorageEnvironment.RestoreAsync (it opens the destination on the real " +
                           "file system; it takes no options that could name another) run on the real disk, so their syncs are not delayed; the stores, BackupAsync " +
                           "(through the store's own file system) and the writers are.");
        }

        report.AddFact("targetDataFileMiB", StoreSize.MiB(dataFileBytes));
        report.AddFact("rounds", rounds);
        report.AddFact("values", $"{MinValueBytes}-{MaxValueBytes} bytes (realistic JSON documents), 8-byte keys");

        var pool = Values();
        var store = context.NewDirectory("backup-store");
        var built = await BuildAsync(context, store, dataFileBytes, pool).ConfigureAwait(false);
        report.AddFact("dataFileMiB", StoreSize.MiB(built.DataFileBytes));
        report.AddFact("storeMiB", StoreSize.MiB(StoreSize.Of(store)));
        report.AddFact("liveMiB", StoreSize.MiB(built.UserBytes));
        report.AddFact("entries", built.Entries);

        await MeasureCopiesAsync(context, report, store, built.DataFileBytes, rounds).ConfigureAwait(false);
        await MeasureWritersAsync(context, report, store, window, rounds).ConfigureAwait(false);
        await MeasureRestoreAsync(context, report, archiveBytes, journalFileSize, pool).ConfigureAwait(false);
        return report;
    }

    /// <summary>A pool of realistic JSON values the stores are filled from.</summary>
    private static byte[][] Values()
    {
        var documents = new RealisticJson(Seed);
        return [.. Enumerable.Range(0, 2048).Select(_ => documents.Next(MinValueBytes, MaxValueBytes))];
    }

    /// <summary>What <see cref="BuildAsync"/> left: the data file's size, the keys and values written and their count.</summary>
    private sealed record Built(long DataFileBytes, long UserBytes, long Entries);

    /// <summary>
    /// Fills a store through the merger (untimed: many operations in flight, each a few dozen puts)
    /// until its data file, flushed, reaches <paramref name="dataFileBytes"/>, then closes it.
    /// </summary>
    private static async Task<Built> BuildAsync(ExperimentContext context, string directory, long dataFileBytes, byte[][] pool)
    {
        const int PutsPerOperation = 32;
        const int InFlight = 8;
        var checkEvery = Math.Max(1L << 20, dataFileBytes / 16);
        var dataFile = Path.Combine(directory, "voron.data");
        context.Progress($"building a store of {StoreSize.MiB(dataFileBytes):N0} MiB of data file through the merger (not timed)");
        using var environment = StorageEnvironment.Open(context.Disk.VoronOptions(directory));
        long next = 0, user = 0, sinceCheck = 0;
        var pending = new List<Task>(InFlight);
        while (true)
        {
            var first = next;
            next += PutsPerOperation;
            pending.Add(environment.ExecuteAsync(tx =>
            {
                var tree = tx.CreateTree(BackupTree);
                for (var key = first; key < first + PutsPerOperation; key++)
                {
                    tree.Put(KvDataSet.Key(key), pool[key % pool.Length]);
                }
            }));
            var bytes = Enumerable.Range(0, PutsPerOperation).Sum(i => 8L + pool[(first + i) % pool.Length].Length);
            user += bytes;
            sinceCheck += bytes;
            if (pending.Count == InFlight)
            {
                await Task.WhenAll(pending).ConfigureAwait(false);
                pending.Clear();
            }

            if (sinceCheck >= checkEvery)
            {
                await Task.WhenAll(pending).ConfigureAwait(false);
                pending.Clear();
                sinceCheck = 0;
                environment.FlushToDataFile();
                if (StoreSize.OfFile(dataFile) >= dataFileBytes)
                {
                    break;
                }
            }
        }

        environment.FlushToDataFile();
        context.Progress($"built: {next:N0} entries, {StoreSize.MiB(user):N0} MiB of keys and values, data file {StoreSize.MiB(StoreSize.OfFile(dataFile)):N0} MiB");
        return new Built(StoreSize.OfFile(dataFile), user, next);
    }

    /// <summary>Bytes per second in MB/s (10^6 bytes).</summary>
    private static double MBps(long bytes, double seconds) => seconds > 0 ? bytes / 1e6 / seconds : 0;

    /// <summary>Deletes a directory and everything under it, if it is there.</summary>
    private static void DeleteDirectory(string path)
    {
        if (Directory.Exists(path))
        {
            Directory.Delete(path, recursive: true);
        }
    }
}
