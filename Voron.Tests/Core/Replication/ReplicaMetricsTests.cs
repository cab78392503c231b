using System.Diagnostics.Metrics;
using Voron.Diagnostics;
using Voron.Tests.Documents.Expiration;

namespace Voron.Tests.Core.Replication;

/// <summary>
/// A replica's gauges (meter Voron.Core): <c>voron.replica.applied_transaction</c> is the status's
/// applied transaction, and <c>voron.replica.lag</c> is how far its commit time trails the newest
/// transaction seen in the destination — zero once caught up. The primary's clock is moved by hand,
/// so the lag is an exact number of steps, and the replica is held behind by holding its write lock
/// (its apply takes it, T1), never by waiting.
/// </summary>
public sealed class ReplicaMetricsTests(ITestOutputHelper output)
{
    private const string Applied = "voron.replica.applied_transaction";
    private const string Lag = "voron.replica.lag";
    private const int Behind = 6;
    private static readonly TimeSpan Step = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task Replica_gauges_report_the_applied_transaction_and_its_lag_in_commit_time_which_is_zero_once_caught_up()
    {
        var seed = TestSeed.Next(output, nameof(Replica_gauges_report_the_applied_transaction_and_its_lag_in_commit_time_which_is_zero_once_caught_up));
        var clock = new ManualClock(new DateTimeOffset(2026, 12, 1, 0, 0, 0, TimeSpan.Zero));
        using var primary = new ReplicatedPrimary(seed, configure: options => options.Clock = clock);
        primary.Commit(5);
        await primary.UploadSnapshotAsync();
        primary.Commit(20);
        var shipped = await ShipAllAsync(primary, clock);
        using var replica = StorageEnvironment.OpenReplica(primary.Destination, primary.Combine("replica"), ReplicaModelTests.FastOptions(primary.Lineage));
        await WaitForAsync(replica, shipped);

        var caughtUp = Observe(replica.Path);
        Assert.Equal(shipped, replica.Replica!.AppliedTransaction);
        Assert.Equal(shipped, caughtUp[Applied]);
        Assert.Equal(0, caughtUp[Lag]);

        // Behind: the replica has downloaded the next object (its newest seen transaction) and
        // waits for the write lock to apply the first of its records. The k-th commit here is k
        // steps after the last applied one, so the lag is (newest seen - applied) steps.
        long behind;
        using (replica.BeginWriteCore())
        {
            while (primary.Env.LastCommittedTransactionId < shipped + Behind)
            {
                var before = primary.Env.LastCommittedTransactionId;
                primary.Commit(1); // a transaction that changes nothing commits nothing
                if (primary.Env.LastCommittedTransactionId > before)
                {
                    clock.Advance(Step);
                }
            }

            behind = await ShipAllAsync(primary, clock);
            var deadline = DateTime.UtcNow + ReplicaModelTests.Patience; // a hang guard, not a verdict: the loop ends once the replica has seen an object
            while (replica.Replica is not { } seen || seen.NewestSeenTransaction == shipped ||
                   seen.NewestSeenCommitTime != seen.AppliedCommitTime + (seen.NewestSeenTransaction - shipped) * Step) // both fields of the newest seen written
            {
                Assert.True(DateTime.UtcNow < deadline, $"seed {seed}: the replica saw none of transactions {shipped + 1}..{behind} with its commit time: {replica.Replica}");
                replica.WakeReplica();
                await Task.Delay(20);
            }

            var held = Observe(replica.Path);
            var status = replica.Replica!;
            output.WriteLine($"held back: {status}; gauges {held[Applied]}, {held[Lag]} s");
            Assert.Equal(ReplicaState.Following, status.State);
            Assert.Equal(shipped, status.AppliedTransaction);
            Assert.Equal(status.AppliedTransaction, held[Applied]);
            Assert.Equal((status.NewestSeenTransaction - shipped) * Step, status.Lag);
            Assert.True(status.Lag > TimeSpan.Zero);
            Assert.Equal(status.Lag.TotalSeconds, held[Lag]);
        }

        await WaitForAsync(replica, behind);
        var after = Observe(replica.Path);
        Assert.Equal(behind, replica.Replica!.AppliedTransaction);
        Assert.Equal(behind, after[Applied]);
        Assert.Equal(0, after[Lag]);
    }

    /// <summary>Leaves the journal's current file (its first record is a step old by the clock) and ships every file; returns the primary's last transaction, now in the destination.</summary>
    private static async Task<long> ShipAllAsync(ReplicatedPrimary primary, ManualClock clock)
    {
        clock.Advance(Step);
        primary.Env.ReleaseAgedJournalFile();
        var shipped = await primary.ShipAsync();
        Assert.Equal(primary.Env.LastCommittedTransactionId, shipped);
        return shipped;
    }

    private static async Task WaitForAsync(StorageEnvironment replica, long transactionId)
    {
        using var timeout = new CancellationTokenSource(ReplicaModelTests.Patience);
        await replica.WaitForTransactionAsync(transactionId, timeout.Token);
    }

    /// <summary>The replica gauges' values for the store at <paramref name="path"/>, observed now.</summary>
    private static Dictionary<string, double> Observe(string path)
    {
        var values = new Dictionary<string, double>(StringComparer.Ordinal);
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == VoronMetrics.MeterName && instrument.Name is Applied or Lag)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) =>
        {
            if (tags.ToArray().Any(tag => tag.Key == "voron.store" && (string?)tag.Value == path))
            {
                values[instrument.Name] = value;
            }
        });
        listener.Start();
        listener.RecordObservableInstruments();
        return values;
    }
}
