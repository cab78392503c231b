
namespace Voron.Tests.Core.Replication;

/// <summary>
/// RE5, RE6: each way the shipped log can break stops the replica between two transactions, with
/// the reason in its status and in WaitForTransactionAsync; it keeps serving what it applied.
/// </summary>
public sealed class ReplicaFailSafeTests(ITestOutputHelper output)
{
    [Fact]
    public async Task A_journal_object_deleted_from_the_middle_stops_the_replica_at_the_gap()
    {
        var seed = TestSeed.Next(output, nameof(A_journal_object_deleted_from_the_middle_stops_the_replica_at_the_gap));
        await BreakAndFollowAsync(seed, ShippedLogBreaks.Delete, "RE5", "is missing while a later one");
    }

    [Fact]
    public async Task A_damaged_journal_object_stops_the_replica_before_it()
    {
        var seed = TestSeed.Next(output, nameof(A_damaged_journal_object_stops_the_replica_before_it));
        await BreakAndFollowAsync(seed, ShippedLogBreaks.Damage(new Random(seed)), "AO2", "damaged");
    }

    [Fact]
    public async Task A_journal_object_that_does_not_continue_the_chain_stops_the_replica_before_it()
    {
        var seed = TestSeed.Next(output, nameof(A_journal_object_that_does_not_continue_the_chain_stops_the_replica_before_it));
        await BreakAndFollowAsync(seed, ShippedLogBreaks.ForgeChain, "AO1", "does not continue");
    }

    [Fact]
    public async Task A_fork_of_the_followed_lineage_stops_the_replica()
    {
        var seed = TestSeed.Next(output, nameof(A_fork_of_the_followed_lineage_stops_the_replica));
        using var primary = new ReplicatedPrimary(seed);
        primary.Commit(5);
        await primary.UploadSnapshotAsync();
        primary.Commit(30);
        var shipped = await primary.ShipAsync();
        using var replica = StorageEnvironment.OpenReplica(primary.Destination, primary.Combine("replica"), ReplicaModelTests.FastOptions(primary.Lineage));
        using (var timeout = new CancellationTokenSource(ReplicaModelTests.Patience))
        {
            await replica.WaitForTransactionAsync(shipped, timeout.Token);
        }

        // The primary is restored (its store replaced): the restore records <new lineage>/fork naming this lineage.
        await ObjectArchive.RestoreAsync(primary.Destination, primary.Lineage, primary.Combine("restored"));
        using (var timeout = new CancellationTokenSource(ReplicaModelTests.Patience))
        {
            var stopped = await Assert.ThrowsAsync<ReplicaStoppedException>(() => replica.WaitForTransactionAsync(shipped + 1, timeout.Token));
            Assert.Contains("RE6", stopped.Message);
        }

        AssertStoppedAt(primary, replica, shipped, "forked from the followed lineage");
    }

    /// <summary>
    /// The replica follows up to a point, is closed; the primary ships at least three more objects;
    /// <paramref name="damage"/> breaks the second of them; the reopened replica applies the first
    /// and stops at the damage, having applied exactly the transactions before it.
    /// </summary>
    private static async Task BreakAndFollowAsync(int seed, Action<string> damage, string rule, string reason)
    {
        var random = new Random(seed);
        using var primary = new ReplicatedPrimary(seed);
        var directory = primary.Combine("replica");
        await primary.FollowedReplicaAsync(directory, 5, 10);
        var known = primary.JournalObjects().Keys.Max();
        var shipped = await primary.ShipObjectsAfterAsync(known, 3, random);

        var objects = primary.JournalObjects();
        var kept = objects[known + 1];
        var victim = objects[known + 2];
        var expected = ReplicatedPrimary.LastTxOf(kept);
        damage(victim);

        using (var replica = StorageEnvironment.OpenReplica(primary.Destination, directory, ReplicaModelTests.FastOptions(primary.Lineage)))
        {
            using (var timeout = new CancellationTokenSource(ReplicaModelTests.Patience))
            {
                var stopped = await Assert.ThrowsAsync<ReplicaStoppedException>(() => replica.WaitForTransactionAsync(shipped, timeout.Token));
                Assert.Contains(rule, stopped.Message + stopped.InnerException?.Message);
            }

            AssertStoppedAt(primary, replica, expected, reason);
        }
    }

    private static void AssertStoppedAt(ReplicatedPrimary primary, StorageEnvironment replica, long expected, string reason)
    {
        var status = replica.Replica!;
        Assert.Equal(ReplicaState.Stopped, status.State);
        Assert.IsType<ReplicaStoppedException>(status.Error);
        Assert.Contains(reason, status.Error!.Message);
        Assert.True(status.ResnapshotWouldRebuild); // the open-time check finds this break again (RR1)
        Assert.Equal(expected, status.AppliedTransaction); // nothing skipped, nothing partial
        Assert.Equal(expected, replica.LastCommittedTransactionId);
        using var read = replica.BeginRead(); // it still serves what it applied
        Assert.Null(primary.Compare(read.Id, ReplicatedPrimary.Read(read)));
    }
}
