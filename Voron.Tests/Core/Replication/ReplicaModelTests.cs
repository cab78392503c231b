namespace Voron.Tests.Core.Replication;

/// <summary>A replica that follows a shipped journal equals the model at every transaction it shows (RE2–RE4).</summary>
public sealed class ReplicaModelTests(ITestOutputHelper output)
{
    /// <summary>A hang guard only: every wait below completes as soon as the replica applied what it waits for.</summary>
    internal static readonly TimeSpan Patience = TimeSpan.FromMinutes(2);

    internal static ReplicaOptions FastOptions(string lineage) => new() { Lineage = lineage, PollInterval = TimeSpan.FromMilliseconds(20) };

    [Fact]
    public async Task Replica_state_equals_the_model_at_every_applied_transaction_and_readers_never_see_part_of_one()
    {
        var seed = TestSeed.Next(output, nameof(Replica_state_equals_the_model_at_every_applied_transaction_and_readers_never_see_part_of_one));
        var random = new Random(seed);
        using var primary = new ReplicatedPrimary(seed);
        primary.Commit(5);
        var snapshot = await primary.UploadSnapshotAsync();
        primary.Commit(3);
        await primary.ShipAsync();

        // No background flush: every applied version stays in the page table until the one flush at
        // the end, which then writes them all at once. A shipped record carries no tombstones for
        // the pages its transaction freed, so without the replica's own (an older page's version
        // under a run that now covers it, DecodeReplicated) that flush wrote the stale page over the
        // run, and the data file failed its checksums (P4) after the flush.
        using var replica = StorageEnvironment.OpenReplica(primary.Destination, primary.Combine("replica"),
            new ReplicaOptions { Lineage = primary.Lineage, PollInterval = TimeSpan.FromMilliseconds(20), Configure = o => o.BackgroundFlush = false });
        Assert.True(replica.LastCommittedTransactionId >= snapshot);

        // Readers on another thread, all the while: each snapshot equals the model at its id (T3 over RE2).
        using var stop = new CancellationTokenSource();
        var checks = 0;
        var checker = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                using var read = replica.BeginRead();
                if (primary.Compare(read.Id, ReplicatedPrimary.Read(read)) is { } difference)
                {
                    return difference;
                }

                checks++;
            }

            return null;
        });

        long shipped = 0;
        for (var round = 0; round < 25; round++)
        {
            primary.Commit(random.Next(1, 15));
            shipped = await primary.ShipAsync();
            using var timeout = new CancellationTokenSource(Patience);
            await replica.WaitForTransactionAsync(shipped, timeout.Token);
            using var read = replica.BeginRead();
            Assert.True(read.Id >= shipped);
            Assert.Null(primary.Compare(read.Id, ReplicatedPrimary.Read(read)));
            var status = replica.Replica!;
            Assert.Equal(ReplicaState.Following, status.State);
            Assert.True(status.AppliedTransaction >= shipped);
            Assert.Equal(primary.Lineage, status.Lineage);
        }

        await stop.CancelAsync();
        Assert.Null(await checker);
        output.WriteLine($"{checks} concurrent snapshot checks; applied through {replica.LastCommittedTransactionId}, shipped {shipped}");
        Assert.Equal(shipped, replica.LastCommittedTransactionId); // nothing past what was shipped, nothing skipped
        Assert.Equal(replica.LastCommittedTransactionId, replica.CheckIntegrity().TransactionId); // throws on a damaged structure
        replica.FlushToDataFile(); // the flushed data file (PT5 over replicated runs) reads the same
        using (var read = replica.BeginRead())
        {
            Assert.Null(primary.Compare(read.Id, ReplicatedPrimary.Read(read)));
        }

        Assert.Equal(replica.LastCommittedTransactionId, replica.CheckIntegrity().TransactionId);
    }
}
