using Voron.Archive;
using Voron.Tests.Core.Backup;

namespace Voron.Tests.Core.Archive;

/// <summary>SH8: a compacted store ships the end of its predecessor's log and records the fork before its own files.</summary>
public sealed class CompactionHandOverTests(ITestOutputHelper output)
{
    [Fact]
    public async Task A_compacted_store_ships_the_old_lineages_last_files_and_a_fork_note_so_restores_and_replicas_reach_the_compaction()
    {
        var seed = TestSeed.Next(output, nameof(A_compacted_store_ships_the_old_lineages_last_files_and_a_fork_note_so_restores_and_replicas_reach_the_compaction));
        using var remote = new TempDirectory();
        var destination = new DirectoryArchiveDestination(remote.Path);
        using var store = new ShippingWorkload(seed, destination);
        store.Commit(40);
        var backup = await store.Env.BackupAsync(store.Combine("b1"));
        await ObjectArchive.UploadSnapshotAsync(destination, backup.Directory);
        store.Env.FlushToDataFile();
        await store.Env.ShipArchiveAsync();
        store.Commit(30); // not shipped before the compaction; the current journal file's part is archived only by the swap (JA9)
        var old = (Id: store.Lineage, Text: store.LineageText, Last: store.Env.LastCommittedTransactionId);

        await store.CompactAsync();
        Assert.NotEqual(old.Id, store.Lineage);
        store.Commit(10);
        store.Env.FlushToDataFile();
        var status = await store.Env.ShipArchiveAsync();
        Assert.Equal(0, status.PendingFiles);
        Assert.Null(status.LastError);

        var fork = await ArchiveUpload.ReadHeaderAsync(destination, ArchiveKeys.Fork(store.Lineage), default);
        Assert.NotNull(fork);
        Assert.Equal(ArchiveObjectKind.ForkNote, fork.Value.Kind);
        Assert.Equal(old.Id, fork.Value.Parent);
        Assert.Equal(old.Last, fork.Value.LastTx);

        // The old lineage's log reaches its last transaction: a restore from the destination gets there.
        var restored = await ObjectArchive.RestoreAsync(destination, old.Text, store.Combine("old"), recordFork: false);
        Assert.Equal(old.Last, restored.TransactionId);
        StoreContents.AssertStore(restored.Directory, store.States[old.Last], old.Last);

        // A replica of the old lineage applies that end, then stops at the fork (RE6) rather than waiting for ever.
        using var replica = StorageEnvironment.OpenReplica(destination, store.Combine("replica"),
            new ReplicaOptions { Lineage = old.Text, PollInterval = TimeSpan.FromMilliseconds(20) });
        var stopped = await Assert.ThrowsAsync<ReplicaStoppedException>(() => replica.WaitForTransactionAsync(old.Last + 1));
        Assert.Contains(ArchiveKeys.Lineage(store.Lineage), stopped.Message);
        Assert.Equal(old.Last, replica.LastCommittedTransactionId);

        // Shipping again repeats nothing and changes nothing (AO3 accepts the same bytes).
        var again = await store.Env.ShipArchiveAsync();
        Assert.Null(again.LastError);
    }

    [Fact]
    public async Task A_store_compacted_before_it_ever_shipped_records_no_fork()
    {
        var seed = TestSeed.Next(output, nameof(A_store_compacted_before_it_ever_shipped_records_no_fork));
        using var remote = new TempDirectory();
        var destination = new DirectoryArchiveDestination(remote.Path);
        using var store = new ShippingWorkload(seed, destination);
        store.Commit(30);
        var old = store.Lineage;
        await store.CompactAsync();
        store.Commit(5);
        store.Env.FlushToDataFile();
        await store.Env.ShipArchiveAsync();

        Assert.Null(await ArchiveUpload.ReadHeaderAsync(destination, ArchiveKeys.Fork(store.Lineage), default));
        Assert.Empty(await ArchiveDestinationContract.KeysAsync(destination, ArchiveKeys.Lineage(old) + "/"));
    }
}
