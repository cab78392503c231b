namespace Voron.Tests.Core.Backup;

/// <summary>
/// JA9: a backup taken before a compaction, with the journal archive, restores to every
/// transaction up to the compaction, and a target past it is refused naming the compaction.
/// </summary>
/// <remarks>
/// What broke: the swap (CP4) deleted the live journal file without archiving it (a clean close
/// archives only the files before it), so the archive lacked the last commits before the
/// compaction (the restore stopped short: "the archive ends at transaction 256" for a store at
/// 300), and once the compacted store archived a file of its own, the number of the missing file
/// was a gap and no restore of that backup worked at all ("journal file 5 is missing"). The swap
/// now archives every journal file of the old store and writes a compaction note saying where
/// that store's log ends; restore stops there.
/// </remarks>
public sealed class RestoreAcrossCompactionTests
{
    private static StorageEnvironmentOptions Options(string store, string archive)
    {
        var options = StorageEnvironmentOptions.ForDirectory(store);
        options.JournalArchiveDirectory = archive;
        options.JournalFileSize = 64 << 10;
        options.BackgroundFlush = false;
        return options;
    }

    /// <summary>A store with one key, a full backup of it, then <paramref name="writes"/> 2,000-byte keys k000...; returns the last transaction.</summary>
    private static async Task<long> BackupThenWriteAsync(string store, string archive, string backup, int writes)
    {
        long last = 0;
        using var env = StorageEnvironment.Open(Options(store, archive));
        Put(env, "first");
        await env.BackupAsync(backup);
        for (var i = 0; i < writes; i++)
        {
            last = Put(env, $"k{i:D3}", 2000);
        }

        return last;
    }

    private static long Put(StorageEnvironment env, string key, int size = 600)
    {
        using var tx = env.BeginWrite();
        var value = new byte[size];
        new Random(key.GetHashCode(StringComparison.Ordinal)).NextBytes(value);
        tx.CreateTree(StoreContents.TreeName).Put(Encoding.UTF8.GetBytes(key), value);
        tx.Commit();
        return tx.Id;
    }

    private static HashSet<string> Keys(string store)
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(store));
        using var read = env.BeginRead();
        var keys = new HashSet<string>(StringComparer.Ordinal);
        var tree = read.OpenTree(StoreContents.TreeName);
        var iterator = tree?.Iterate();
        if (iterator != null && iterator.SeekFirst())
        {
            do
            {
                keys.Add(Encoding.UTF8.GetString(iterator.Key));
            }
            while (iterator.MoveNext());
        }

        return keys;
    }

    [Fact]
    public async Task A_backup_taken_before_a_compaction_restores_to_the_last_commit_before_it_and_refuses_a_later_target_naming_it()
    {
        using var temp = new Voron.Testing.TempDirectory();
        var store = temp.Combine("store");
        var archive = temp.Combine("archive");
        long backupTx;
        long last = 0;
        using (var env = StorageEnvironment.Open(Options(store, archive)))
        {
            Put(env, "first");
            backupTx = (await env.BackupAsync(temp.Combine("backup"))).TransactionId;
            for (var i = 0; i < 300; i++)
            {
                last = Put(env, $"k{i:D3}");
                if (i % 50 == 49)
                {
                    env.FlushToDataFile();
                }
            }
        }

        var compacted = await StorageEnvironment.CompactAsync(Options(store, archive));
        Assert.Equal(last, compacted.TransactionId);
        var note = Assert.Single(ArchivedCompaction.List(StorageEnvironmentOptions.ForDirectory(archive).FileSystem, archive));
        Assert.Equal(last, note.SourceTransaction);

        // Every commit before the compaction is in the archive: the last one, and with no target too.
        var atLast = await StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("at-last"),
            new RestoreOptions { JournalArchiveDirectory = archive, ToTransactionId = last });
        Assert.Equal(last, atLast.TransactionId);
        Assert.Contains("k299", Keys(atLast.Directory));
        var asFarAsItGoes = await StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("far"), new RestoreOptions { JournalArchiveDirectory = archive });
        Assert.Equal(last, asFarAsItGoes.TransactionId);

        // The compacted store archives files of its own, numbered past the old store's.
        long afterCompaction;
        using (var env = StorageEnvironment.Open(Options(store, archive)))
        {
            for (var i = 0; i < 120; i++)
            {
                Put(env, $"after{i:D3}", 2000);
            }

            afterCompaction = env.LastCommittedTransactionId;
            env.FlushToDataFile();
        }

        Assert.Contains(JournalFiles.List(StorageEnvironmentOptions.ForDirectory(archive).FileSystem, archive), n => n >= note.CopyFirstFile);
        foreach (var target in new[] { backupTx, backupTx + 1, last - 1, last })
        {
            var restored = await StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine($"r{target}"),
                new RestoreOptions { JournalArchiveDirectory = archive, ToTransactionId = target });
            Assert.Equal(target, restored.TransactionId);
        }

        var refused = await Assert.ThrowsAsync<InvalidOperationException>(() => StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("past"),
            new RestoreOptions { JournalArchiveDirectory = archive, ToTransactionId = afterCompaction }));
        Assert.Contains($"compacted after transaction {last}", refused.Message, StringComparison.Ordinal);
        Assert.Contains("backup taken after the compaction", refused.Message, StringComparison.Ordinal);
        Assert.False(Directory.Exists(temp.Combine("past")));
        var noTarget = await StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("far2"), new RestoreOptions { JournalArchiveDirectory = archive });
        Assert.Equal(last, noTarget.TransactionId);
    }

    [Fact]
    public async Task A_time_target_after_a_compaction_restores_its_last_commit_until_the_compacted_store_commits_and_is_refused_after()
    {
        using var temp = new Voron.Testing.TempDirectory();
        var store = temp.Combine("store");
        var archive = temp.Combine("archive");
        var last = await BackupThenWriteAsync(store, archive, temp.Combine("backup"), 60);

        await StorageEnvironment.CompactAsync(Options(store, archive));
        await Task.Delay(20);
        var quiet = DateTimeOffset.UtcNow; // after the compaction, before the compacted store commits
        await Task.Delay(20);
        DateTimeOffset later;
        using (var env = StorageEnvironment.Open(Options(store, archive)))
        {
            for (var i = 0; i < 120; i++)
            {
                Put(env, $"after{i:D3}", 2000);
            }

            await Task.Delay(20);
            later = DateTimeOffset.UtcNow;
            await Task.Delay(20);
            Put(env, "later");
            env.FlushToDataFile();
        }

        var restored = await StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("quiet"),
            new RestoreOptions { JournalArchiveDirectory = archive, ToTime = quiet });
        Assert.Equal(last, restored.TransactionId);
        var refused = await Assert.ThrowsAsync<InvalidOperationException>(() => StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("later"),
            new RestoreOptions { JournalArchiveDirectory = archive, ToTime = later }));
        Assert.Contains($"compacted after transaction {last}", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_backup_with_no_record_of_its_snapshot_places_a_time_by_the_compaction_note_or_else_by_the_next_commit()
    {
        using var temp = new Voron.Testing.TempDirectory();
        var store = temp.Combine("store");
        var archive = temp.Combine("archive");
        using (var env = StorageEnvironment.Open(Options(store, archive)))
        {
            Put(env, "first");
        }

        await Task.Delay(20);
        var beforeCompaction = DateTimeOffset.UtcNow;
        await Task.Delay(20);
        await StorageEnvironment.CompactAsync(Options(store, archive));

        // Right after compacting: the snapshot is the compacted store's first transaction, of which no record exists (BM5).
        DateTimeOffset quiet;
        long snapshot;
        using (var env = StorageEnvironment.Open(Options(store, archive)))
        {
            snapshot = (await env.BackupAsync(temp.Combine("backup"))).TransactionId;
            await Task.Delay(20);
            quiet = DateTimeOffset.UtcNow;
            await Task.Delay(20);
            for (var i = 0; i < 80; i++)
            {
                Put(env, $"after{i:D3}", 2000);
            }

            env.FlushToDataFile();
        }

        var fileSystem = StorageEnvironmentOptions.ForDirectory(archive).FileSystem;
        Assert.Equal(0, Voron.Backup.BackupManifest.Read(fileSystem, temp.Combine("backup")).SnapshotCommitTime);
        var restored = await StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("quiet"),
            new RestoreOptions { JournalArchiveDirectory = archive, ToTime = quiet });
        Assert.Equal(snapshot, restored.TransactionId);
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("early"),
            new RestoreOptions { JournalArchiveDirectory = archive, ToTime = beforeCompaction }));

        // A restored store has no note to go by: a time before its first archived commit cannot be placed.
        var copyArchive = temp.Combine("copy-archive");
        var copy = (await StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("copy"))).Directory;
        DateTimeOffset beforeFirst;
        DateTimeOffset afterFirst;
        long first;
        using (var env = StorageEnvironment.Open(Options(copy, copyArchive)))
        {
            await env.BackupAsync(temp.Combine("copy-backup"));
            await Task.Delay(20);
            beforeFirst = DateTimeOffset.UtcNow;
            await Task.Delay(20);
            first = Put(env, "one", 2000);
            await Task.Delay(20);
            afterFirst = DateTimeOffset.UtcNow;
            await Task.Delay(20);
            for (var i = 0; i < 80; i++)
            {
                Put(env, $"more{i:D3}", 2000);
            }

            env.FlushToDataFile();
        }

        var unknown = await Assert.ThrowsAsync<InvalidOperationException>(() => StorageEnvironment.RestoreAsync(temp.Combine("copy-backup"), temp.Combine("c1"),
            new RestoreOptions { JournalArchiveDirectory = copyArchive, ToTime = beforeFirst }));
        Assert.Contains("cannot be told", unknown.Message, StringComparison.Ordinal);
        var placed = await StorageEnvironment.RestoreAsync(temp.Combine("copy-backup"), temp.Combine("c2"),
            new RestoreOptions { JournalArchiveDirectory = copyArchive, ToTime = afterFirst });
        Assert.Equal(first, placed.TransactionId);
    }

    [Fact]
    public async Task The_last_file_before_a_compaction_cut_short_is_named_when_a_target_lies_past_the_cut()
    {
        using var temp = new Voron.Testing.TempDirectory();
        var store = temp.Combine("store");
        var archive = temp.Combine("archive");
        var last = await BackupThenWriteAsync(store, archive, temp.Combine("backup"), 40);

        await StorageEnvironment.CompactAsync(Options(store, archive));
        var note = Assert.Single(ArchivedCompaction.List(StorageEnvironmentOptions.ForDirectory(archive).FileSystem, archive));
        var path = JournalFiles.PathOf(archive, note.SourceLastFile);
        long cutBefore;
        using (var file = File.Open(path, FileMode.Open))
        {
            var head = new byte[JournalRecord.HeaderSize];
            file.ReadExactly(head);
            var first = System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(head.AsSpan(JournalRecord.TransactionIdOffset));
            Assert.True(first < last, $"the last file holds transactions {first}..{last}");
            file.SetLength(JournalRecord.RecordSize(System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(head.AsSpan(JournalRecord.StoredPayloadSizeOffset))));
            cutBefore = first + 1;
        }

        var e = await Assert.ThrowsAsync<CorruptionException>(() => StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("r"),
            new RestoreOptions { JournalArchiveDirectory = archive }));
        Assert.Equal(path, e.File);
        Assert.Contains("cut short", e.Message, StringComparison.Ordinal);
        var before = await StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("before"),
            new RestoreOptions { JournalArchiveDirectory = archive, ToTransactionId = cutBefore - 1 });
        Assert.Equal(cutBefore - 1, before.TransactionId);
    }
}
