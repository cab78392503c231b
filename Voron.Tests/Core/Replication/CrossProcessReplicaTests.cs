using Azure.Storage.Blobs;
using Voron.ObjectStorage;
using Voron.Testing.Processes;
using Voron.Tests.ObjectStorage;

namespace Voron.Tests.Core.Replication;

/// <summary>
/// A read replica in another process (<c>Voron.Testing.Processes follow-child</c>) follows this
/// process's primary through a directory, s3rver and Azurite while the primary writes and ships
/// (RE2–RE4 across processes): the child prints a digest of the replica's whole state for every
/// transaction it applies, and each equals the model's digest at that id, from the restored
/// snapshot's transaction to the last one committed, without a gap.
/// </summary>
/// <remarks>
/// Every transaction, not a sample: the primary leaves its journal file after each commit
/// (ArchiveMaxDelay zero, and <see cref="StorageEnvironment.ReleaseAgedJournalFile"/> before the next
/// commit), so each shipped object holds one transaction, and the child lets its replica download
/// an object only after it has read the state the previous one left (PacedDestination.cs). A
/// replica has no hook inside its apply step; this pacing through the destination stands in for one.
/// </remarks>
public sealed class CrossProcessReplicaTests(ITestOutputHelper output)
{
    private const int Transactions = 200;
    private const string Prefix = "follow";

    /// <summary>A hang guard only: the child exits as soon as it read the last transaction.</summary>
    private static readonly TimeSpan HangGuard = TimeSpan.FromMinutes(5);

    [Fact]
    public async Task A_follower_in_another_process_equals_the_model_after_every_transaction_shipped_to_a_directory()
    {
        var seed = TestSeed.Next(output, nameof(A_follower_in_another_process_equals_the_model_after_every_transaction_shipped_to_a_directory));
        using var remote = new TempDirectory();
        await FollowAsync(seed, new DirectoryArchiveDestination(remote.Path), ["dir", remote.Path]);
    }

    [ObjectServerFact("s3rver")]
    public async Task A_follower_in_another_process_equals_the_model_after_every_transaction_shipped_to_s3rver()
    {
        var seed = TestSeed.Next(output, nameof(A_follower_in_another_process_equals_the_model_after_every_transaction_shipped_to_s3rver));
        using var server = ObjectServer.StartS3rver();
        using var destination = S3ArchiveDestination.ForEndpoint(server.Endpoint, ObjectServer.Bucket, "S3RVER", "S3RVER", Prefix);
        await FollowAsync(seed, destination, ["s3", server.Endpoint.ToString(), ObjectServer.Bucket, Prefix]);
    }

    [ObjectServerFact("azurite")]
    public async Task A_follower_in_another_process_equals_the_model_after_every_transaction_shipped_to_Azurite()
    {
        var seed = TestSeed.Next(output, nameof(A_follower_in_another_process_equals_the_model_after_every_transaction_shipped_to_Azurite));
        using var server = ObjectServer.StartAzurite();
        var container = new BlobContainerClient(server.AzuriteConnectionString, ObjectServer.Bucket);
        await container.CreateIfNotExistsAsync();
        await FollowAsync(seed, new AzureBlobArchiveDestination(container, Prefix), ["azure", server.AzuriteConnectionString, ObjectServer.Bucket, Prefix]);
    }

    [Fact]
    public async Task A_follower_in_another_process_stops_at_a_gap_with_exit_code_3_after_applying_every_transaction_before_it()
    {
        var seed = TestSeed.Next(output, nameof(A_follower_in_another_process_stops_at_a_gap_with_exit_code_3_after_applying_every_transaction_before_it));
        using var primary = NewPrimary(seed, destination: null);
        CommitEachInItsOwnObject(primary, 5);
        var snapshot = await primary.UploadSnapshotAsync();
        CommitEachInItsOwnObject(primary, snapshot + 12);
        var last = primary.Env.LastCommittedTransactionId;
        using (var timeout = new CancellationTokenSource(HangGuard))
        {
            while ((await primary.Env.ShipArchiveAsync(timeout.Token)).LastShippedTransaction < last)
            {
                await Task.Delay(20, timeout.Token); // a hang guard: the background release archives the last file
            }
        }

        var gap = snapshot + 5;
        var missing = primary.JournalObjects().Values.Single(path => ReplicatedPrimary.LastTxOf(path) == gap); // one transaction per object
        File.Delete(missing);

        using var child = FollowerProcess.Start(primary.Combine("replica"), primary.Lineage, last, ["dir", primary.Remote]);
        var (exitCode, lines, errors) = await child.WaitAsync(HangGuard);
        var at = $"seed {seed}, {primary.Destination.Description} without the object of transaction {gap}";
        Assert.True(exitCode == FollowChild.Stopped, $"{at}: the follower exited with {exitCode}, not 3 (stopped); last lines: {string.Join(" | ", lines.TakeLast(3))}; {errors}");
        Assert.StartsWith("STOPPED ", lines[^1]);
        Assert.Contains("RE5: journal object", lines[^1]); // the gap, named
        CheckReported(primary, lines, snapshot, gap - 1, at);
    }

    private async Task FollowAsync(int seed, IArchiveDestination destination, string[] where)
    {
        using var primary = NewPrimary(seed, destination);
        CommitEachInItsOwnObject(primary, 5);
        var snapshot = await primary.UploadSnapshotAsync();
        CommitEachInItsOwnObject(primary, snapshot + 3); // shipped before the follower starts
        var until = primary.Env.LastCommittedTransactionId + Transactions;

        using var child = FollowerProcess.Start(primary.Combine("replica"), primary.Lineage, until, where);
        CommitEachInItsOwnObject(primary, until); // while the child follows
        var (exitCode, lines, errors) = await child.WaitAsync(HangGuard);

        var at = $"seed {seed}, {destination.Description}";
        Assert.True(exitCode == FollowChild.Reached, $"{at}: the follower exited with {exitCode} (0: reached {until}, 2: gave up, 3: stopped); last lines: {string.Join(" | ", lines.TakeLast(3))}; {errors}");
        Assert.Equal($"DONE {until}", lines[^1]);
        CheckReported(primary, lines, snapshot, until, at);
    }

    /// <summary>The follower read every transaction from the snapshot's to <paramref name="last"/>, in order, each equal to the model at its id.</summary>
    private void CheckReported(ReplicatedPrimary primary, List<string> lines, long snapshot, long last, string at)
    {
        var reported = lines.Where(l => l.StartsWith("TX ", StringComparison.Ordinal)).Select(l => l.Split(' '))
            .Select(p => (Id: long.Parse(p[1], CultureInfo.InvariantCulture), Digest: p[2])).ToList();
        output.WriteLine($"{at}: the follower read {reported.Count} transactions, {reported.FirstOrDefault().Id} to {reported.LastOrDefault().Id}; the snapshot was at {snapshot}");
        Assert.True(reported.Count > 0, $"{at}: the follower reported nothing");
        Assert.True(reported[0].Id == snapshot, $"{at}: the follower's first state is transaction {reported[0].Id}, not the snapshot's {snapshot}");
        for (var i = 0; i < reported.Count; i++)
        {
            var (id, digest) = reported[i];
            if (i > 0 && id != reported[i - 1].Id + 1)
            {
                Assert.Fail($"{at}: the follower read transaction {id} after {reported[i - 1].Id}: it skipped one");
            }

            Assert.True(primary.States.TryGetValue(id, out var model), $"{at}: the follower read transaction {id}, which the primary never committed");
            Assert.True(digest == Digest(model), $"{at}: the follower's state at transaction {id} differs from the model's");
        }

        Assert.True(reported[^1].Id == last, $"{at}: the follower's last state is transaction {reported[^1].Id}, not {last}");
    }

    /// <summary>A primary that ships in the background and leaves its journal file as soon as it holds a record (ArchiveMaxDelay zero).</summary>
    private static ReplicatedPrimary NewPrimary(int seed, IArchiveDestination? destination) =>
        new(seed, destination, options =>
        {
            options.ShipArchiveInBackground = true;
            options.ArchiveMaxDelay = TimeSpan.Zero;
            options.ArchiveShippingInterval = TimeSpan.FromMilliseconds(50);
        });

    /// <summary>
    /// Commits one transaction at a time until the primary's last transaction is <paramref name="until"/>
    /// (a transaction that changes nothing commits nothing), each leaving the journal file, so shipped as an object of its own.
    /// </summary>
    private static void CommitEachInItsOwnObject(ReplicatedPrimary primary, long until)
    {
        while (primary.Env.LastCommittedTransactionId < until)
        {
            primary.Commit(1);
            primary.Env.ReleaseAgedJournalFile(); // leaves it unless the background release (ArchiveMaxDelay zero) already did
        }
    }

    private static string Digest(Dictionary<string, SortedDictionary<string, byte[]>> model) =>
        StateDigest.Of(model.ToDictionary(t => t.Key, t => t.Value.Select(e => (Encoding.UTF8.GetBytes(e.Key), e.Value)).ToList(), StringComparer.Ordinal));
}
