using Voron.Archive;
using Voron.Tests.Core.Backup;

namespace Voron.Tests.Core.Archive;

/// <summary>Snapshots, restore and point-in-time restore from a destination, lineages and retention (OA1..OA4).</summary>
public sealed class ObjectArchiveTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Restoring_from_the_destination_gives_the_models_state_at_each_target()
    {
        var seed = TestSeed.Next(output, nameof(Restoring_from_the_destination_gives_the_models_state_at_each_target));
        using var history = await ArchivedHistory.Create(seed, 200);
        var destination = new DirectoryArchiveDestination(history.Combine("remote"));
        var lineage = await ShipAsync(history, destination);

        var full = await ObjectArchive.RestoreAsync(destination, lineage, history.Combine("full"));
        var local = await StorageEnvironment.RestoreAsync(history.Backup, history.Combine("local"), new RestoreOptions { JournalArchiveDirectory = history.Archive });
        Assert.Equal(local.TransactionId, full.TransactionId); // OA2: as far as the shipped log goes, as from the local archive
        Assert.True(full.TransactionId - history.BackupTxId >= 100, $"restored {full.TransactionId - history.BackupTxId} transactions after the backup");
        StoreContents.AssertStore(full.Directory, history.States[full.TransactionId], full.TransactionId);

        var random = new Random(seed);
        for (var i = 0; i < 5; i++)
        {
            var target = history.BackupTxId + random.NextInt64(0, full.TransactionId - history.BackupTxId + 1);
            var result = await ObjectArchive.RestoreAsync(destination, lineage, history.Combine($"at-{target}-{i}"), new RestoreOptions { ToTransactionId = target });
            Assert.Equal(target, result.TransactionId);
            StoreContents.AssertStore(result.Directory, history.States[target], target);
        }

        var timed = await ObjectArchive.RestoreAsync(destination, lineage, history.Combine("timed"), new RestoreOptions { ToTime = history.TimeBetween });
        Assert.Equal(history.TimedTxId, timed.TransactionId);
        StoreContents.AssertStore(timed.Directory, history.States[history.TimedTxId], history.TimedTxId);
        Assert.Empty(Directory.GetDirectories(history.Combine(""), "*.download-*")); // the downloads are deleted
    }

    [Fact]
    public async Task A_damaged_journal_object_fails_the_restore_naming_its_key()
    {
        var seed = TestSeed.Next(output, nameof(A_damaged_journal_object_fails_the_restore_naming_its_key));
        using var history = await ArchivedHistory.Create(seed, 120);
        var destination = new DirectoryArchiveDestination(history.Combine("remote"));
        var lineage = await ShipAsync(history, destination);
        var victim = Directory.GetFiles(Path.Combine(history.Combine("remote"), lineage, "journal")).Order(StringComparer.Ordinal).Last();
        var bytes = File.ReadAllBytes(victim);
        bytes[ArchiveObjectHeader.Size + 700] ^= 0x40;
        File.WriteAllBytes(victim, bytes);

        var failure = await Assert.ThrowsAsync<CorruptionException>(() => ObjectArchive.RestoreAsync(destination, lineage, history.Combine("restored")));
        Assert.Contains(Path.GetFileName(victim), failure.File);
        Assert.Contains("AO2", failure.Message);
        Assert.False(Directory.Exists(history.Combine("restored")) && Directory.EnumerateFileSystemEntries(history.Combine("restored")).Any());
    }

    [Fact]
    public async Task A_restored_store_ships_into_a_new_lineage_whose_fork_names_its_parent()
    {
        var seed = TestSeed.Next(output, nameof(A_restored_store_ships_into_a_new_lineage_whose_fork_names_its_parent));
        using var history = await ArchivedHistory.Create(seed, 120);
        var destination = new DirectoryArchiveDestination(history.Combine("remote"));
        var lineage = await ShipAsync(history, destination);
        var parentObjects = await ArchiveDestinationContract.KeysAsync(destination, lineage + "/");
        var target = history.BackupTxId + 10;
        var restored = await ObjectArchive.RestoreAsync(destination, lineage, history.Combine("fork"), new RestoreOptions { ToTransactionId = target });

        var options = ArchivedHistory.Options(restored.Directory, history.Combine("fork-archive"));
        options.ArchiveDestination = destination;
        options.ShipArchiveInBackground = false;
        string child;
        using (var env = StorageEnvironment.Open(options))
        {
            child = env.StoreId.ToString("x16", CultureInfo.InvariantCulture);
            for (var i = 0; i < 40; i++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(Encoding.UTF8.GetBytes($"fork{i}"), new byte[3000]);
                tx.Commit();
                if (i % 5 == 4)
                {
                    env.FlushToDataFile();
                }
            }

            Assert.True((await env.ShipArchiveAsync()).LastShippedFile > 0);
        }

        Assert.NotEqual(lineage, child); // AK2: a restored store is a new store, so a new lineage
        Assert.Equal(parentObjects, await ArchiveDestinationContract.KeysAsync(destination, lineage + "/")); // the parent's lineage is untouched
        var fork = ArchiveObjectHeader.Decode(await ArchiveDestinationContract.ReadAllAsync(destination, ArchiveKeys.Fork(Convert.ToUInt64(child, 16))), "fork");
        Assert.Equal(ArchiveObjectKind.ForkNote, fork.Kind);
        Assert.Equal(Convert.ToUInt64(lineage, 16), fork.Parent);
        Assert.Equal(target, fork.LastTx);
        Assert.NotEmpty(await ArchiveDestinationContract.KeysAsync(destination, ArchiveKeys.JournalPrefix(Convert.ToUInt64(child, 16))));
    }

    [Fact]
    public async Task Retention_deletes_only_what_a_newer_snapshot_covers()
    {
        var seed = TestSeed.Next(output, nameof(Retention_deletes_only_what_a_newer_snapshot_covers));
        using var remote = new TempDirectory();
        var destination = new DirectoryArchiveDestination(remote.Path);
        using var store = new ShippingWorkload(seed, destination);
        store.Commit(40);
        var first = await store.Env.BackupAsync(store.Combine("b1"));
        await ObjectArchive.UploadSnapshotAsync(destination, first.Directory);
        store.Commit(80);
        var second = await store.Env.BackupAsync(store.Combine("b2"));
        await ObjectArchive.UploadSnapshotAsync(destination, second.Directory);
        store.Commit(40);
        store.Env.FlushToDataFile();
        await store.Env.ShipArchiveAsync();

        Assert.Equal(0, await ObjectArchive.PruneAsync(destination, store.LineageText, keepSnapshots: 2)); // nothing older than both
        var deleted = await ObjectArchive.PruneAsync(destination, store.LineageText, keepSnapshots: 1);
        Assert.True(deleted > 0);
        Assert.Empty(await ArchiveDestinationContract.KeysAsync(destination, ArchiveKeys.Snapshot(store.Lineage, first.TransactionId)));

        // What is left still restores to every transaction from the kept snapshot on.
        var restored = await ObjectArchive.RestoreAsync(destination, store.LineageText, store.Combine("restored"),
            new RestoreOptions { ToTransactionId = second.TransactionId + 30 });
        StoreContents.AssertStore(restored.Directory, store.States[second.TransactionId + 30], second.TransactionId + 30);
    }

    /// <summary>Uploads the history's backup and ships its archive; returns the lineage.</summary>
    private static async Task<string> ShipAsync(ArchivedHistory history, IArchiveDestination destination)
    {
        var info = StorageEnvironment.Inspect(history.Store);
        await ObjectArchive.UploadSnapshotAsync(destination, history.Backup);
        var shipper = new ArchiveShipper(destination, history.Archive, Convert.ToUInt64(info.StoreId, 16), TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));
        await shipper.ShipPendingAsync(default);
        await shipper.DisposeAsync();
        return info.StoreId;
    }
}
