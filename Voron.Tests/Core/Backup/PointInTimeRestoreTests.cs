using Voron.Backup;
using Voron.Testing;

namespace Voron.Tests.Core.Backup;

/// <summary>Restore and point-in-time restore (JA1..JA7, BK8): every transaction of a seeded history, and each error.</summary>
public sealed class PointInTimeRestoreTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Restoring_to_each_archived_transaction_gives_the_models_state_at_it()
    {
        var seed = TestSeed.Next(output, nameof(Restoring_to_each_archived_transaction_gives_the_models_state_at_it));
        using var history = await ArchivedHistory.Create(seed, 280);
        var archived = JournalFiles.List(StorageEnvironmentOptions.ForDirectory(history.Archive).FileSystem, history.Archive);
        Assert.True(archived.Count >= 3, $"the workload archived {archived.Count} journal files");

        // As far as the archive goes: the newest transactions are still in the live journal (JA1).
        var full = await StorageEnvironment.RestoreAsync(history.Backup, history.Combine("full"), new RestoreOptions { JournalArchiveDirectory = history.Archive });
        Assert.True(full.TransactionId - history.BackupTxId >= 200, $"the archive holds {full.TransactionId - history.BackupTxId} transactions after the backup");
        Assert.Equal(full.TransactionId - history.BackupTxId, full.TransactionsReplayed);
        Assert.True(full.JournalBytesReplayed > 0);
        Assert.NotNull(full.CommitTime);
        StoreContents.AssertStore(full.Directory, history.States[full.TransactionId], full.TransactionId);

        // 200 transactions spread evenly from the backup's snapshot to the archive's end, both included.
        var span = full.TransactionId - history.BackupTxId;
        var targets = Enumerable.Range(0, 200).Select(i => history.BackupTxId + (span * i / 199)).Distinct().ToList();
        Assert.Equal(200, targets.Count);
        foreach (var target in targets)
        {
            var destination = history.Combine($"at-{target}");
            var result = await StorageEnvironment.RestoreAsync(history.Backup, destination,
                new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTransactionId = target });
            Assert.Equal(target, result.TransactionId);
            Assert.Equal(target - history.BackupTxId, result.TransactionsReplayed);
            StoreContents.AssertStore(destination, history.States[target], target);
            Directory.Delete(destination, recursive: true);
        }
    }

    [Fact]
    public async Task Restoring_to_a_time_stops_before_the_first_transaction_committed_after_it()
    {
        using var history = await ArchivedHistory.Create(11, 60);
        var result = await StorageEnvironment.RestoreAsync(history.Backup, history.Combine("timed"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTime = history.TimeBetween });
        Assert.Equal(history.TimedTxId, result.TransactionId);
        Assert.True(result.CommitTime <= history.TimeBetween);
        StoreContents.AssertStore(result.Directory, history.States[history.TimedTxId], history.TimedTxId);
    }

    [Fact]
    public async Task Restoring_the_backup_alone_gives_its_snapshot_and_Prune_keeps_what_it_needs()
    {
        using var history = await ArchivedHistory.Create(12, 40);
        var result = await StorageEnvironment.RestoreAsync(history.Backup, history.Combine("plain"));
        Assert.Equal(history.BackupTxId, result.TransactionId);
        Assert.Equal(0, result.TransactionsReplayed);
        StoreContents.AssertStore(result.Directory, history.States[history.BackupTxId], history.BackupTxId);

        // A new backup makes the older archived files unnecessary; restoring from it still works.
        long newBackupTx;
        using (var env = StorageEnvironment.Open(ArchivedHistory.Options(history.Store, history.Archive)))
        {
            newBackupTx = (await env.BackupAsync(history.Combine("backup2"))).TransactionId;
        }

        var before = Directory.GetFiles(history.Archive, "*.journal").Length;
        var deleted = JournalArchive.Prune(history.Archive, history.Combine("backup2"));
        var manifest = BackupManifest.Read(StorageEnvironmentOptions.ForDirectory(history.Archive).FileSystem, history.Combine("backup2"));
        var kept = JournalFiles.List(StorageEnvironmentOptions.ForDirectory(history.Archive).FileSystem, history.Archive);
        Assert.True(deleted > 0, $"pruned {deleted} of {before}");
        Assert.Equal(before - deleted, kept.Count);
        Assert.All(kept, n => Assert.True(n >= manifest.JournalFile, $"kept file {n}, at or after the backup's journal start {manifest.JournalFile}"));
        var again = await StorageEnvironment.RestoreAsync(history.Combine("backup2"), history.Combine("after-prune"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive });
        Assert.True(again.TransactionId >= newBackupTx);
        StoreContents.AssertStore(again.Directory, history.States[again.TransactionId], again.TransactionId);
    }

    [Fact]
    public async Task A_damaged_archived_record_is_a_CorruptionException_naming_the_file()
    {
        using var history = await ArchivedHistory.Create(13, 60);
        var file = Directory.GetFiles(history.Archive, "*.journal").Order(StringComparer.Ordinal).Skip(1).First();
        var bytes = File.ReadAllBytes(file);
        bytes[600] ^= 0x40; // inside the first record's second sector
        File.WriteAllBytes(file, bytes);

        var e = await Assert.ThrowsAsync<CorruptionException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("r"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive }));
        Assert.Equal(file, e.File);
        Assert.False(Directory.Exists(history.Combine("r")), "a failed restore leaves no directory behind");
    }

    [Fact]
    public async Task An_archived_file_cut_at_a_record_boundary_is_named_not_the_intact_file_after_it()
    {
        // The restore blamed the next, intact file ("written and since changed"); the records
        // missing are the cut file's (D2 across files).
        using var history = await ArchivedHistory.Create(19, 60);
        var files = Directory.GetFiles(history.Archive, "*.journal").Order(StringComparer.Ordinal).ToList();
        Assert.True(files.Count >= 3);
        var cutFile = files[1];
        var head = new byte[JournalRecord.HeaderSize];
        using (var file = File.Open(cutFile, FileMode.Open))
        {
            file.ReadExactly(head);
            var cut = JournalRecord.RecordSize(System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(head.AsSpan(JournalRecord.StoredPayloadSizeOffset)));
            Assert.True(file.Length > cut, "the file holds more than one record");
            file.SetLength(cut);
        }

        var e = await Assert.ThrowsAsync<CorruptionException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("r"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive }));
        Assert.Equal(cutFile, e.File);
        Assert.Contains("cut short", e.Message);
    }

    [Fact]
    public async Task A_missing_file_in_the_archived_sequence_is_an_error_not_a_silent_stop()
    {
        using var history = await ArchivedHistory.Create(14, 60);
        var files = Directory.GetFiles(history.Archive, "*.journal").Order(StringComparer.Ordinal).ToList();
        Assert.True(files.Count >= 3);
        File.Delete(files[1]);

        var e = await Assert.ThrowsAsync<CorruptionException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("r"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive }));
        Assert.Equal(files[1], e.File);
        Assert.Contains("missing", e.Message);
    }

    [Fact]
    public async Task A_missing_file_refuses_only_the_targets_past_it()
    {
        // The whole archive's sequence was checked before replaying, so a file missing anywhere
        // refused every restore, even to a target before it, which the error itself advised.
        using var history = await ArchivedHistory.Create(20, 120);
        var fileSystem = StorageEnvironmentOptions.ForDirectory(history.Archive).FileSystem;
        var manifest = BackupManifest.Read(fileSystem, history.Backup);
        var files = JournalFiles.List(fileSystem, history.Archive).Where(n => n > manifest.JournalFile).ToList();
        Assert.True(files.Count >= 2, $"{files.Count} archived files after the backup's first");
        var gone = files[^2];
        var head = new byte[JournalRecord.HeaderSize];
        using (var file = File.OpenRead(JournalFiles.PathOf(history.Archive, gone)))
        {
            file.ReadExactly(head);
        }

        var firstMissing = System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(head.AsSpan(JournalRecord.TransactionIdOffset));
        Assert.True(firstMissing > history.BackupTxId + 1);
        File.Delete(JournalFiles.PathOf(history.Archive, gone));

        foreach (var target in new[] { history.BackupTxId, history.BackupTxId + 1, firstMissing - 1 })
        {
            var destination = history.Combine($"before-{target}");
            var restored = await StorageEnvironment.RestoreAsync(history.Backup, destination,
                new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTransactionId = target });
            Assert.Equal(target, restored.TransactionId);
            StoreContents.AssertStore(destination, history.States[target], target);
        }

        foreach (var options in new[]
                 {
                     new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTransactionId = firstMissing },
                     new RestoreOptions { JournalArchiveDirectory = history.Archive },
                 })
        {
            var e = await Assert.ThrowsAsync<CorruptionException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("past"), options));
            Assert.Equal(JournalFiles.PathOf(history.Archive, gone), e.File);
            Assert.Contains($"restore to at most transaction {firstMissing - 1}", e.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task A_time_before_the_backups_snapshot_is_refused_as_a_transaction_before_it_is()
    {
        // ToTime before the snapshot restored the backup's own (later) state without a word: the
        // check looked at ToTransactionId only, and the manifest's snapshot commit time was 0.
        using var history = await ArchivedHistory.Create(21, 60);
        var fileSystem = StorageEnvironmentOptions.ForDirectory(history.Archive).FileSystem;
        var manifest = BackupManifest.Read(fileSystem, history.Backup);
        Assert.True(manifest.SnapshotCommitTime > history.TimeBeforeBackup.ToUnixTimeMilliseconds(), "BM5: the snapshot's commit time is written");
        var e = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("r"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTime = history.TimeBeforeBackup }));
        Assert.Contains("before the backup's snapshot", e.Message, StringComparison.Ordinal);
        Assert.False(Directory.Exists(history.Combine("r")));

        // A time needs the archive: the backup alone cannot say what was committed after it.
        await Assert.ThrowsAsync<ArgumentException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("r"),
            new RestoreOptions { ToTime = history.TimeBetween }));

        // A manifest of an earlier build says 0 (unknown): the snapshot's record in the archive gives the time.
        var old = manifest with { SnapshotCommitTime = 0 };
        File.WriteAllBytes(BackupManifest.PathIn(history.Backup), old.Encode());
        var again = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("r"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTime = history.TimeBeforeBackup }));
        Assert.Contains("before the backup's snapshot", again.Message, StringComparison.Ordinal);
        var timed = await StorageEnvironment.RestoreAsync(history.Backup, history.Combine("timed"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTime = history.TimeBetween });
        Assert.Equal(history.TimedTxId, timed.TransactionId);
    }

    [Fact]
    public async Task A_time_after_the_archives_last_transaction_is_refused_as_the_same_target_by_id_is()
    {
        // The replay stopped at the archive's end without a word, missing commits made before the
        // time asked that are still in the live journal.
        using var history = await ArchivedHistory.Create(22, 60);
        var full = await StorageEnvironment.RestoreAsync(history.Backup, history.Combine("full"), new RestoreOptions { JournalArchiveDirectory = history.Archive });
        Assert.True(full.TransactionId < history.LastTxId, $"the archive ends at {full.TransactionId}, the store at {history.LastTxId}");
        var e = await Assert.ThrowsAsync<InvalidOperationException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("r"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTime = DateTimeOffset.UtcNow }));
        Assert.Contains($"ends at transaction {full.TransactionId}", e.Message, StringComparison.Ordinal);
        Assert.Contains("the target time", e.Message, StringComparison.Ordinal);
        Assert.False(Directory.Exists(history.Combine("r")));
    }

    [Fact]
    public async Task The_archive_of_another_store_is_refused()
    {
        using var history = await ArchivedHistory.Create(15, 30);
        using var other = await ArchivedHistory.Create(16, 30);
        var e = await Assert.ThrowsAsync<CorruptionException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("r"),
            new RestoreOptions { JournalArchiveDirectory = other.Archive }));
        Assert.Contains("another store", e.Message);
    }

    [Fact]
    public async Task A_target_beyond_the_archive_says_where_the_archive_ends()
    {
        using var history = await ArchivedHistory.Create(17, 30);
        var e = await Assert.ThrowsAsync<InvalidOperationException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("r"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTransactionId = history.LastTxId + 100 }));
        Assert.Contains("ends at transaction", e.Message);
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("r2"),
            new RestoreOptions { JournalArchiveDirectory = history.Archive, ToTransactionId = history.BackupTxId - 1 }));
    }

    [Fact]
    public async Task Restore_refuses_a_live_store_a_non_empty_directory_and_a_directory_that_is_not_a_backup()
    {
        using var history = await ArchivedHistory.Create(18, 20);
        using (var live = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(history.Combine("live"))))
        {
            await Assert.ThrowsAsync<StoreLockedException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("live")));
        }

        Directory.CreateDirectory(history.Combine("busy"));
        File.WriteAllText(Path.Combine(history.Combine("busy"), "x"), "x");
        var busy = await Assert.ThrowsAsync<IOException>(() => StorageEnvironment.RestoreAsync(history.Backup, history.Combine("busy")));
        Assert.Contains("not empty", busy.Message);

        var notBackup = await Assert.ThrowsAsync<CorruptionException>(() => StorageEnvironment.RestoreAsync(history.Store, history.Combine("r")));
        Assert.Contains("not a backup", notBackup.Message);
    }
}
