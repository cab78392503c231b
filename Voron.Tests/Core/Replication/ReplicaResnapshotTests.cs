using Voron.Replication;

namespace Voron.Tests.Core.Replication;

/// <summary>
/// RR1–RR5: a replica that cannot continue from its position, opened with ReplicaOptions.Resnapshot,
/// is rebuilt from a snapshot past the break and then equals the primary; without the option it
/// stops with the same error as before; a crash at each step of the swap leaves the old replica or
/// the new one.
/// </summary>
public sealed class ReplicaResnapshotTests(ITestOutputHelper output)
{
    public static TheoryData<string> Breaks => ["gap", "damage", "chain"];

    [Theory]
    [MemberData(nameof(Breaks))]
    public async Task Reopen_with_resnapshot_rebuilds_a_replica_broken_at_its_position_into_the_primarys_newest_state(string kind)
    {
        var seed = TestSeed.Next(output, $"{nameof(Reopen_with_resnapshot_rebuilds_a_replica_broken_at_its_position_into_the_primarys_newest_state)}({kind})");
        using var primary = new ReplicatedPrimary(seed);
        var (directory, stoppedAt, rule, snapshot) = await BreakAtPositionAsync(primary, seed, kind);

        // Without the option: the same clear stop as before, and the status says a re-snapshot would cure it.
        using (var stale = StorageEnvironment.OpenReplica(primary.Destination, directory, ReplicaModelTests.FastOptions(primary.Lineage)))
        {
            using var timeout = new CancellationTokenSource(ReplicaModelTests.Patience);
            var stopped = await Assert.ThrowsAsync<ReplicaStoppedException>(() => stale.WaitForTransactionAsync(stoppedAt + 1, timeout.Token));
            Assert.Contains(rule, stopped.Message + stopped.InnerException?.Message);
            Assert.Equal(stoppedAt, stale.LastCommittedTransactionId);
            Assert.True(stale.Replica!.ResnapshotWouldRebuild);
            Assert.Null(stale.Replica!.RebuiltBecause);
        }

        var shipped = await primary.ShipAsync();
        using var replica = StorageEnvironment.OpenReplica(primary.Destination, directory, Resnapshot(primary.Lineage));
        var status = replica.Replica!;
        Assert.Contains(rule, status.RebuiltBecause);
        Assert.Equal(ReplicaState.Following, status.State);
        await AssertCaughtUpAsync(primary, replica, Math.Max(shipped, snapshot));
        AssertNoRebuildLeftovers(directory);
    }

    [Fact]
    public async Task Reopen_with_resnapshot_without_a_snapshot_past_the_break_says_what_to_upload_and_keeps_the_replica()
    {
        var seed = TestSeed.Next(output, nameof(Reopen_with_resnapshot_without_a_snapshot_past_the_break_says_what_to_upload_and_keeps_the_replica));
        using var primary = new ReplicatedPrimary(seed);
        var (directory, stoppedAt, _, _) = await BreakAtPositionAsync(primary, seed, "gap", uploadSnapshot: false);

        var refused = Assert.Throws<ReplicaStoppedException>(() => StorageEnvironment.OpenReplica(primary.Destination, directory, Resnapshot(primary.Lineage)));
        Assert.Contains("RE5", refused.Message);
        Assert.Contains("no snapshot past the break", refused.Message);
        Assert.Contains("UploadSnapshotAsync", refused.Message);
        AssertNoRebuildLeftovers(directory);

        using var kept = StorageEnvironment.OpenReplica(primary.Destination, directory, ReplicaModelTests.FastOptions(primary.Lineage));
        Assert.Equal(stoppedAt, kept.LastCommittedTransactionId);
    }

    /// <summary>
    /// After a fork, a reopen with Resnapshot switches to the lineage that forked: found by itself
    /// (RE6 at its position), or named in ReplicaOptions.Lineage (refused without Resnapshot).
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Reopen_with_resnapshot_after_a_fork_follows_the_lineage_that_forked(bool named)
    {
        var seed = TestSeed.Next(output, $"{nameof(Reopen_with_resnapshot_after_a_fork_follows_the_lineage_that_forked)}({named})");
        using var primary = new ReplicatedPrimary(seed);
        var directory = primary.Combine("replica");
        var shipped = await primary.FollowedReplicaAsync(directory, 5, 20);

        // The primary is restored elsewhere (a fork note names the lineage), written to, shipped, and backed up.
        await ObjectArchive.RestoreAsync(primary.Destination, primary.Lineage, primary.Combine("restored"));
        var childOptions = Voron.Tests.Core.Backup.ArchivedHistory.Options(primary.Combine("restored"), primary.Combine("child-archive"));
        childOptions.ArchiveDestination = primary.Destination;
        childOptions.ShipArchiveInBackground = false;
        using var child = StorageEnvironment.Open(childOptions);
        var childLineage = child.StoreId.ToString("x16", CultureInfo.InvariantCulture);
        var random = new Random(seed);
        var states = new Dictionary<long, string>();
        WriteChild(child, random, 40, states);
        var backup = await child.BackupAsync(primary.Combine("child-backup"));
        await ObjectArchive.UploadSnapshotAsync(primary.Destination, backup.Directory);
        WriteChild(child, random, 40, states);
        child.FlushToDataFile();
        var childShipped = (await child.ShipArchiveAsync()).LastShippedTransaction;

        using (var stale = StorageEnvironment.OpenReplica(primary.Destination, directory, ReplicaModelTests.FastOptions(primary.Lineage)))
        {
            using var timeout = new CancellationTokenSource(ReplicaModelTests.Patience);
            var stopped = await Assert.ThrowsAsync<ReplicaStoppedException>(() => stale.WaitForTransactionAsync(shipped + 1, timeout.Token));
            Assert.Contains("RE6", stopped.Message);
            Assert.True(stale.Replica!.ResnapshotWouldRebuild);
        }

        if (named)
        {
            var refused = Assert.Throws<ArgumentException>(() => StorageEnvironment.OpenReplica(primary.Destination, directory, ReplicaModelTests.FastOptions(childLineage)));
            Assert.Contains("ReplicaOptions.Resnapshot to switch", refused.Message);
        }

        using (var replica = StorageEnvironment.OpenReplica(primary.Destination, directory, Resnapshot(named ? childLineage : primary.Lineage)))
        {
            Assert.Equal(childLineage, replica.Replica!.Lineage);
            Assert.Contains("forked from the followed lineage", replica.Replica!.RebuiltBecause);
            using var timeout = new CancellationTokenSource(ReplicaModelTests.Patience);
            await replica.WaitForTransactionAsync(childShipped, timeout.Token);
            using var read = replica.BeginRead();
            Assert.Equal(states[read.Id], Describe(read));
        }

        // Opened again under the lineage it was first given (an ancestor now), it resumes the one it switched to.
        using (var again = StorageEnvironment.OpenReplica(primary.Destination, directory, ReplicaModelTests.FastOptions(primary.Lineage)))
        {
            Assert.Equal(childLineage, again.Replica!.Lineage);
            Assert.Null(again.Replica!.RebuiltBecause);
            Assert.Equal(childShipped, again.LastCommittedTransactionId);
        }
    }

    /// <summary>
    /// A crash after each step of the swap (RR3), simulated by a throw from the step seam that
    /// leaves the files as they are: the next open, without the option, finds the old replica
    /// before the marker (step 1) and the new one from the marker on (RR4), with no leftovers.
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    public async Task A_crash_after_each_swap_step_leaves_the_old_replica_or_the_new_one(int step)
    {
        var seed = TestSeed.Next(output, $"{nameof(A_crash_after_each_swap_step_leaves_the_old_replica_or_the_new_one)}({step})");
        using var primary = new ReplicatedPrimary(seed);
        var (directory, stoppedAt, _, snapshot) = await BreakAtPositionAsync(primary, seed, "gap");
        var shipped = await primary.ShipAsync();
        var rebuiltTo = Math.Max(shipped, snapshot); // the snapshot may be newer than what the destination's journal holds yet

        var crash = Assert.Throws<SimulatedCrashException>(() => StorageEnvironment.OpenReplica(primary.Destination, directory, new ReplicaOptions
        {
            Lineage = primary.Lineage,
            PollInterval = TimeSpan.FromMilliseconds(20),
            Resnapshot = true,
            AfterRebuildStep = done =>
            {
                if (done == step)
                {
                    throw new SimulatedCrashException(step);
                }
            },
        }));
        output.WriteLine(crash.Message);

        using (var after = StorageEnvironment.OpenReplica(primary.Destination, directory, ReplicaModelTests.FastOptions(primary.Lineage)))
        {
            AssertNoRebuildLeftovers(directory);
            if (step < 2)
            {
                Assert.Equal(stoppedAt, after.LastCommittedTransactionId); // the old replica, which stops at its break again
                using var timeout = new CancellationTokenSource(ReplicaModelTests.Patience);
                await Assert.ThrowsAsync<ReplicaStoppedException>(() => after.WaitForTransactionAsync(shipped, timeout.Token));
            }
            else
            {
                await AssertCaughtUpAsync(primary, after, rebuiltTo); // the new replica
            }
        }

        using var rebuilt = StorageEnvironment.OpenReplica(primary.Destination, directory, Resnapshot(primary.Lineage));
        await AssertCaughtUpAsync(primary, rebuilt, rebuiltTo);
    }

    [Fact]
    public async Task A_first_open_interrupted_after_its_build_leaves_nothing_or_a_whole_replica()
    {
        var seed = TestSeed.Next(output, nameof(A_first_open_interrupted_after_its_build_leaves_nothing_or_a_whole_replica));
        using var primary = new ReplicatedPrimary(seed);
        primary.Commit(5);
        await primary.UploadSnapshotAsync();
        primary.Commit(20);
        var shipped = await primary.ShipAsync();
        foreach (var step in new[] { 1, 4 })
        {
            var directory = primary.Combine($"replica-{step}");
            Assert.Throws<SimulatedCrashException>(() => StorageEnvironment.OpenReplica(primary.Destination, directory, new ReplicaOptions
            {
                Lineage = primary.Lineage,
                AfterRebuildStep = done => _ = done == step ? throw new SimulatedCrashException(step) : 0,
            }));
            Assert.Equal(step >= 2, File.Exists(Path.Combine(directory, ReplicaPosition.FileName)) || File.Exists(directory + ReplicaRebuild.MarkerSuffix));
            using var replica = StorageEnvironment.OpenReplica(primary.Destination, directory, ReplicaModelTests.FastOptions(primary.Lineage));
            AssertNoRebuildLeftovers(directory);
            await AssertCaughtUpAsync(primary, replica, shipped);
        }
    }

    private static ReplicaOptions Resnapshot(string lineage) => new() { Lineage = lineage, PollInterval = TimeSpan.FromMilliseconds(20), Resnapshot = true };

    /// <summary>
    /// The replica follows the primary, is closed; the primary ships at least two more objects, the
    /// first of which (the one at the replica's position) is broken as <paramref name="kind"/> says;
    /// then a newer snapshot is uploaded (unless told not to) and more is committed, not yet shipped.
    /// Returns the replica's directory, its last transaction, the rule its stop names, and the newer
    /// snapshot's transaction (0 without one): a replica rebuilt from it holds at least that, even
    /// when the destination's journal does not reach it yet (the primary's live journal file is not shipped).
    /// </summary>
    private static async Task<(string Directory, long StoppedAt, string Rule, long Snapshot)> BreakAtPositionAsync(ReplicatedPrimary primary, int seed, string kind,
        bool uploadSnapshot = true)
    {
        var random = new Random(seed);
        var directory = primary.Combine("replica");
        var first = await primary.FollowedReplicaAsync(directory, 5, 10);
        var known = primary.JournalObjects().Keys.Max();
        await primary.ShipObjectsAfterAsync(known, 2, random);

        var victim = primary.JournalObjects()[known + 1];
        var (damage, rule) = kind switch
        {
            "gap" => (ShippedLogBreaks.Delete, "RE5"),
            "damage" => (ShippedLogBreaks.Damage(random), "AO2"),
            "chain" => ((Action<string>)ShippedLogBreaks.ForgeChain, "AO1"),
            _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "gap, damage or chain"),
        };
        damage(victim);
        var snapshot = uploadSnapshot ? await primary.UploadSnapshotAsync("backup-after-break") : 0;
        primary.Commit(random.Next(5, 20));
        return (directory, first, rule, snapshot);
    }

    private static async Task AssertCaughtUpAsync(ReplicatedPrimary primary, StorageEnvironment replica, long expected)
    {
        using (var timeout = new CancellationTokenSource(ReplicaModelTests.Patience))
        {
            await replica.WaitForTransactionAsync(expected, timeout.Token);
        }

        Assert.Equal(ReplicaState.Following, replica.Replica!.State);
        Assert.Equal(expected, replica.LastCommittedTransactionId);
        using var read = replica.BeginRead();
        Assert.Null(primary.Compare(read.Id, ReplicatedPrimary.Read(read)));
    }

    private static void AssertNoRebuildLeftovers(string directory)
    {
        foreach (var suffix in new[] { ReplicaRebuild.BuildSuffix, ReplicaRebuild.DownloadSuffix, ReplicaRebuild.OldSuffix })
        {
            Assert.False(Directory.Exists(directory + suffix), directory + suffix);
        }

        Assert.False(File.Exists(directory + ReplicaRebuild.MarkerSuffix));
    }

    /// <summary>Random puts on the restored store; <paramref name="states"/> gets its contents after each transaction, by id.</summary>
    private static void WriteChild(StorageEnvironment child, Random random, int transactions, Dictionary<long, string> states)
    {
        for (var n = 0; n < transactions; n++)
        {
            using (var tx = child.BeginWrite())
            {
                var value = new byte[random.Next(1, 3000)];
                random.NextBytes(value);
                tx.CreateTree("orders").Put(Encoding.UTF8.GetBytes($"child-{random.Next(300):D3}"), value);
                tx.Commit();
            }

            using var read = child.BeginRead();
            states[read.Id] = Describe(read);
        }
    }

    /// <summary>Every tree's entries as text, to compare two stores.</summary>
    private static string Describe(ReadTransaction read) => string.Join("\n", ReplicatedPrimary.Read(read).OrderBy(p => p.Key, StringComparer.Ordinal)
        .SelectMany(tree => tree.Value.Select(entry => $"{tree.Key}/{entry.Key}={Convert.ToHexString(entry.Value)}")));

    private sealed class SimulatedCrashException(int step) : Exception($"simulated crash after rebuild step {step}");
}
