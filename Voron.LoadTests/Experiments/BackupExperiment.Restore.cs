namespace Voron.LoadTests.Experiments;

internal sealed partial class BackupExperiment
{
    internal const string RestoreTable = "restore";
    internal const string ToLastArchived = "last archived transaction";
    internal const string ToMiddleTime = "a time in the middle";

    /// <summary>
    /// Point-in-time restore: a store that archives its journal files, a full backup at the start,
    /// writes (untimed) until <paramref name="archiveBytes"/> of journal files are archived (each
    /// flush to the data file releases the files it no longer needs to the archive), then two
    /// timed restores into fresh directories: as far as the archive goes, and to the time
    /// half the archive had been written.
    /// </summary>
    private static async Task MeasureRestoreAsync(ExperimentContext context, Report report, long archiveBytes, long journalFileSize, byte[][] pool)
    {
        const int PutsPerOperation = 16;
        report.AddFact("archiveTargetMiB", StoreSize.MiB(archiveBytes));
        report.AddFact("restoreJournalFileSizeMiB", StoreSize.MiB(journalFileSize));
        var directory = context.NewDirectory("pitr-store");
        var archive = context.NewDirectory("pitr-archive");
        var backup = Path.Combine(context.DataDirectory, "pitr-backup");
        DeleteDirectory(backup);
        var options = context.Disk.VoronOptions(directory);
        options.JournalFileSize = journalFileSize;
        options.JournalArchiveDirectory = archive;
        context.Progress($"point-in-time restore: writing until {StoreSize.MiB(archiveBytes):N0} MiB of journal files ({StoreSize.MiB(journalFileSize):N0} MiB each) are archived (not timed)");

        DateTimeOffset? middleTime = null;
        long middleTransaction = 0;
        long written = 0;
        using (var environment = StorageEnvironment.Open(options))
        {
            await environment.ExecuteAsync(tx => tx.CreateTree(BackupTree).Put(KvDataSet.Key(0), pool[0])).ConfigureAwait(false);
            await environment.BackupAsync(backup).ConfigureAwait(false);
            long key = 1;
            var flushEvery = Math.Max(256L << 10, journalFileSize / 4);
            long sinceFlush = 0;
            while (true)
            {
                var first = key;
                key += PutsPerOperation;
                await environment.ExecuteAsync(tx =>
                {
                    var tree = tx.CreateTree(BackupTree);
                    for (var k = first; k < first + PutsPerOperation; k++)
                    {
                        tree.Put(KvDataSet.Key(k), pool[k % pool.Length]);
                    }
                }).ConfigureAwait(false);
                var bytes = Enumerable.Range(0, PutsPerOperation).Sum(i => 8L + pool[(first + i) % pool.Length].Length);
                written += bytes;
                sinceFlush += bytes;
                if (sinceFlush < flushEvery)
                {
                    continue;
                }

                sinceFlush = 0;
                environment.FlushToDataFile();
                var archived = StoreSize.Of(archive);
                if (middleTime == null && archived >= archiveBytes / 2)
                {
                    // Commits before and after this time are apart by more than a clock tick.
                    await Task.Delay(5).ConfigureAwait(false);
                    middleTime = DateTimeOffset.UtcNow;
                    middleTransaction = environment.LastCommittedTransactionId;
                    await Task.Delay(5).ConfigureAwait(false);
                }

                if (archived >= archiveBytes)
                {
                    break;
                }

                if (written > 64 * archiveBytes + (256L << 20))
                {
                    throw new InvalidOperationException($"{StoreSize.MiB(written):N0} MiB written but only {StoreSize.MiB(archived):N1} MiB of journal archived in {archive}: " +
                                                        "the store does not archive its journal files (StorageEnvironmentOptions.JournalArchiveDirectory).");
                }
            }
        }

        var archiveFiles = Directory.EnumerateFiles(archive, "*", SearchOption.AllDirectories).Count();
        var archiveTotal = StoreSize.Of(archive);
        report.AddFact("archivedMiB", StoreSize.MiB(archiveTotal));
        report.AddFact("archivedFiles", archiveFiles);
        report.AddFact("restoreWrittenMiB", StoreSize.MiB(written));

        foreach (var (target, restore) in new (string, RestoreOptions)[]
                 {
                     (ToLastArchived, new RestoreOptions { JournalArchiveDirectory = archive }),
                     (ToMiddleTime, new RestoreOptions { JournalArchiveDirectory = archive, ToTime = middleTime }),
                 })
        {
            var destination = Path.Combine(context.DataDirectory, "pitr-restored");
            DeleteDirectory(destination);
            var watch = Stopwatch.StartNew();
            var result = await StorageEnvironment.RestoreAsync(backup, destination, restore).ConfigureAwait(false);
            var seconds = watch.Elapsed.TotalSeconds;
            DeleteDirectory(destination);
            context.Progress($"restore to {target}: {seconds:F2} s, {result.TransactionsReplayed:N0} transactions, {StoreSize.MiB(result.JournalBytesReplayed):N1} MiB of journal, " +
                             $"{MBps(result.JournalBytesReplayed, seconds):N0} MB/s");
            report.AddRow(
                ("table", RestoreTable),
                ("to", target),
                ("seconds", seconds),
                ("restoreSeconds", result.Duration.TotalSeconds),
                ("transactionId", result.TransactionId),
                ("expectedTransactionId", target == ToMiddleTime ? middleTransaction : null),
                ("commitTime", result.CommitTime?.ToString("O")),
                ("transactionsReplayed", result.TransactionsReplayed),
                ("journalMiB", StoreSize.MiB(result.JournalBytesReplayed)),
                ("journalMBps", MBps(result.JournalBytesReplayed, seconds)),
                ("archivedMiB", StoreSize.MiB(archiveTotal)));
        }

        DeleteDirectory(backup);
        report.AddNote($"restore: a store with JournalArchiveDirectory set and {StoreSize.MiB(journalFileSize):N0} MiB journal files, a full backup after its first transaction, then " +
                       $"writes of the same values until at least {StoreSize.MiB(archiveBytes):N0} MiB of journal files were archived (each flush to the data file archives the files it no longer needs). " +
                       $"RestoreAsync of the backup plus the archive into a fresh directory, timed to its return: '{ToLastArchived}' replays the whole archive, " +
                       $"'{ToMiddleTime}' stops at the time taken when half of it was archived (expectedTransactionId: the last commit before that time). " +
                       "journalMBps: archived journal bytes read over the wall time (MB = 10^6 bytes).");
    }
}
