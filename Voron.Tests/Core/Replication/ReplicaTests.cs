using Voron.Tests.Core.Archive;

namespace Voron.Tests.Core.Replication;

/// <summary>A replica is read-only (RE1), resumes from its own position (RE4), and rides out a destination that is down (RE7).</summary>
public sealed class ReplicaTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Replica_refuses_every_write_api_saying_to_write_to_the_primary_and_serves_reads_and_backups()
    {
        var seed = TestSeed.Next(output, nameof(Replica_refuses_every_write_api_saying_to_write_to_the_primary_and_serves_reads_and_backups));
        using var primary = new ReplicatedPrimary(seed);
        primary.Commit(5);
        await primary.UploadSnapshotAsync();
        primary.Commit(20);
        var shipped = await primary.ShipAsync();
        var directory = primary.Combine("replica");
        using (var replica = StorageEnvironment.OpenReplica(primary.Destination, directory, ReplicaModelTests.FastOptions(primary.Lineage)))
        {
            using var timeout = new CancellationTokenSource(ReplicaModelTests.Patience);
            await replica.WaitForTransactionAsync(shipped, timeout.Token);
            var before = replica.LastCommittedTransactionId;

            AssertRefused(() => replica.BeginWrite());
            AssertRefused(() => replica.BeginWriteAsync().GetAwaiter().GetResult());
            AssertRefused(() => replica.ExecuteAsync(tx => tx.CreateTree("x")));
            AssertRefused(() => replica.ExecuteAsync(tx => 1));
            AssertRefused(() => replica.ExecuteDeferred(tx => tx.CreateTree("x"), _ => { }, mayRunHere: true, out _));
            Assert.Equal(before, replica.LastCommittedTransactionId);

            using (var read = replica.BeginRead())
            {
                Assert.Null(primary.Compare(read.Id, ReplicatedPrimary.Read(read)));
            }

            var backup = await replica.BackupAsync(primary.Combine("replica-backup")); // a replica is a backup source
            Assert.Equal(before, backup.TransactionId);
            var restored = await StorageEnvironment.RestoreAsync(backup.Directory, primary.Combine("from-replica-backup"));
            using var copy = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(restored.Directory));
            using var copyRead = copy.BeginRead();
            Assert.Null(primary.Compare(before, ReplicatedPrimary.Read(copyRead)));
        }

        var compaction = await Assert.ThrowsAsync<InvalidOperationException>(() => StorageEnvironment.CompactAsync(StorageEnvironmentOptions.ForDirectory(directory)));
        Assert.Contains("read replica", compaction.Message);
    }

    private static void AssertRefused(Action write)
    {
        var refused = Assert.Throws<InvalidOperationException>(write);
        Assert.Contains("read replica", refused.Message);
        Assert.Contains("Write to the primary", refused.Message);
    }

    [Fact]
    public async Task Restarted_replica_resumes_from_its_position_without_downloading_the_snapshot_again()
    {
        var seed = TestSeed.Next(output, nameof(Restarted_replica_resumes_from_its_position_without_downloading_the_snapshot_again));
        var random = new Random(seed);
        using var remote = new TempDirectory();
        var destination = new FaultyDestination(new DirectoryArchiveDestination(remote.Path));
        using var primary = new ReplicatedPrimary(seed, destination);
        primary.Commit(5);
        await primary.UploadSnapshotAsync();
        var directory = primary.Combine("replica");
        for (var restart = 0; restart < 4; restart++)
        {
            primary.Commit(random.Next(10, 60));
            var shipped = await primary.ShipAsync();
            destination.KeysRead.Clear();
            using var replica = StorageEnvironment.OpenReplica(destination, directory, new ReplicaOptions { PollInterval = TimeSpan.FromMilliseconds(20) }); // the one lineage there
            using var timeout = new CancellationTokenSource(ReplicaModelTests.Patience);
            await replica.WaitForTransactionAsync(shipped, timeout.Token);
            using var read = replica.BeginRead();
            Assert.Null(primary.Compare(read.Id, ReplicatedPrimary.Read(read)));
            var snapshotReads = destination.KeysRead.Count(key => key.Contains("/snapshots/", StringComparison.Ordinal));
            if (restart == 0)
            {
                Assert.True(snapshotReads > 0);
            }
            else
            {
                Assert.Equal(0, snapshotReads); // RE4: resumed from its position
            }
        }
    }

    [Fact]
    public async Task Replica_retries_while_the_destination_is_down_and_catches_up_when_it_is_back()
    {
        var seed = TestSeed.Next(output, nameof(Replica_retries_while_the_destination_is_down_and_catches_up_when_it_is_back));
        using var remote = new TempDirectory();
        var destination = new FaultyDestination(new DirectoryArchiveDestination(remote.Path));
        using var primary = new ReplicatedPrimary(seed, destination);
        primary.Commit(5);
        await primary.UploadSnapshotAsync();
        using var replica = StorageEnvironment.OpenReplica(destination, primary.Combine("replica"), ReplicaModelTests.FastOptions(primary.Lineage));
        primary.Commit(40);
        var shipped = await primary.ShipAsync();

        destination.Down = true;
        using (var timeout = new CancellationTokenSource(ReplicaModelTests.Patience))
        {
            while (replica.Replica!.ConsecutiveFailures == 0)
            {
                await Task.Delay(10, timeout.Token); // waits for the replica's next pass, whenever it comes
            }
        }

        var failing = replica.Replica!;
        Assert.Equal(ReplicaState.Following, failing.State); // RE7: no stop
        Assert.Contains("down (injected)", failing.LastError);

        destination.Down = false;
        replica.WakeReplica();
        using (var timeout = new CancellationTokenSource(ReplicaModelTests.Patience))
        {
            await replica.WaitForTransactionAsync(shipped, timeout.Token);
        }

        using var read = replica.BeginRead();
        Assert.Null(primary.Compare(read.Id, ReplicatedPrimary.Read(read)));
        Assert.Equal(ReplicaState.Following, replica.Replica!.State);
    }

    [Fact]
    public async Task Opening_a_replica_without_a_snapshot_or_in_a_directory_with_other_files_says_what_to_do()
    {
        var seed = TestSeed.Next(output, nameof(Opening_a_replica_without_a_snapshot_or_in_a_directory_with_other_files_says_what_to_do));
        using var primary = new ReplicatedPrimary(seed);
        primary.Commit(3);
        await primary.ShipAsync();
        var none = Assert.Throws<InvalidOperationException>(() => StorageEnvironment.OpenReplica(primary.Destination, primary.Combine("r1"),
            new ReplicaOptions { Lineage = primary.Lineage }));
        Assert.Contains("UploadSnapshotAsync", none.Message);

        Directory.CreateDirectory(primary.Combine("r2"));
        File.WriteAllText(primary.Combine("r2/other.txt"), "x");
        await primary.UploadSnapshotAsync();
        var other = Assert.Throws<InvalidOperationException>(() => StorageEnvironment.OpenReplica(primary.Destination, primary.Combine("r2"),
            new ReplicaOptions { Lineage = primary.Lineage }));
        Assert.Contains("not a replica", other.Message);

        using var replica = StorageEnvironment.OpenReplica(primary.Destination, primary.Combine("r3"), new ReplicaOptions { Lineage = primary.Lineage });
        replica.Dispose();
        var wrong = Assert.Throws<ArgumentException>(() => StorageEnvironment.OpenReplica(primary.Destination, primary.Combine("r3"),
            new ReplicaOptions { Lineage = "0123456789abcdef" }));
        Assert.Contains("follows lineage", wrong.Message);
    }
}
