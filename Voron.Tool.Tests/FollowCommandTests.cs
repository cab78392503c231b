using System.Text;

namespace Voron.Tool.Tests;

public sealed class FollowCommandTests
{
    private static StorageEnvironmentOptions PrimaryOptions(TempDirectory temp)
    {
        var options = StorageEnvironmentOptions.ForDirectory(temp.Combine("primary"));
        options.JournalFileSize = 64 << 10;
        options.JournalArchiveDirectory = temp.Combine("archive");
        options.ArchiveDestination = new DirectoryArchiveDestination(temp.Combine("remote"));
        options.BackgroundFlush = false;
        return options;
    }

    /// <summary>A primary that ships to a directory: a snapshot, then <paramref name="transactions"/> commits shipped; returns its lineage and last shipped transaction.</summary>
    private static async Task<(string Lineage, long Shipped)> ShipAsync(TempDirectory temp, int transactions)
    {
        var options = PrimaryOptions(temp);
        using var env = StorageEnvironment.Open(options);
        var backup = await env.BackupAsync(temp.Combine("backup"));
        await ObjectArchive.UploadSnapshotAsync(options.ArchiveDestination!, backup.Directory);
        Commit(env, 0, transactions);
        env.FlushToDataFile();
        var status = await env.ShipArchiveAsync();
        return (status.Lineage, status.LastShippedTransaction);
    }

    /// <summary>Transactions putting o-<paramref name="from"/> and on, one key each.</summary>
    private static void Commit(StorageEnvironment env, int from, int count)
    {
        for (var i = from; i < from + count; i++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("orders").Put(Encoding.UTF8.GetBytes($"o-{i:D4}"), new byte[700 + i % 1000]);
            tx.Commit();
        }
    }

    [Fact]
    public async Task Follow_applies_the_shipped_journal_up_to_the_transaction_asked_and_resumes_later()
    {
        using var temp = new TempDirectory();
        var (lineage, shipped) = await ShipAsync(temp, 300);
        var run = await ToolRun.RunAsync("follow", temp.Combine("remote"), temp.Combine("replica"), "--lineage", lineage, "--poll-seconds", "0.05",
            "--until-transaction", shipped.ToString(System.Globalization.CultureInfo.InvariantCulture));
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Contains($"following lineage {lineage}", run.Out);
        Assert.Contains("applied ", run.Out);

        var again = await ToolRun.RunAsync("follow", temp.Combine("remote"), temp.Combine("replica"), "--until-transaction", shipped.ToString(System.Globalization.CultureInfo.InvariantCulture));
        Assert.True(again.ExitCode == ExitCodes.Ok, again.ToString());
        Assert.Contains($"from transaction {shipped}", again.Out); // resumed: the one lineage there, its own position

        AssertReplicaHolds(temp, shipped);
    }

    /// <summary>The replica in temp/replica holds exactly the transactions up to <paramref name="shipped"/>: transaction i + 1 put o-i.</summary>
    private static void AssertReplicaHolds(TempDirectory temp, long shipped)
    {
        using var replica = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(temp.Combine("replica")));
        Assert.Equal(shipped, replica.LastCommittedTransactionId);
        using var read = replica.BeginRead();
        var last = shipped - 1;
        Assert.True(read.OpenTree("orders")!.TryGet(Encoding.UTF8.GetBytes($"o-{last:D4}"), out var value));
        Assert.Equal(700 + last % 1000, value.Length);
        Assert.False(read.OpenTree("orders")!.TryGet(Encoding.UTF8.GetBytes($"o-{last + 1:D4}"), out _)); // nothing past what was shipped
    }

    [Fact]
    public async Task Follow_exits_with_the_replicas_error_when_the_shipped_log_has_a_gap()
    {
        using var temp = new TempDirectory();
        var (lineage, shipped) = await ShipAsync(temp, 400);
        var objects = Directory.GetFiles(Path.Combine(temp.Combine("remote"), lineage, "journal")).Order(StringComparer.Ordinal).ToList();
        Assert.True(objects.Count >= 3, $"{objects.Count} journal objects");
        File.Delete(objects[objects.Count / 2]);

        var run = await ToolRun.RunAsync("follow", temp.Combine("remote"), temp.Combine("replica"), "--poll-seconds", "0.05",
            "--until-transaction", shipped.ToString(System.Globalization.CultureInfo.InvariantCulture));
        Assert.True(run.ExitCode == ExitCodes.Failed, run.ToString());
        Assert.Contains("RE5", run.Error);
        Assert.Contains("is missing while a later one", run.Error);
    }

    [Fact]
    public async Task Follow_with_resnapshot_rebuilds_the_replica_past_a_gap_and_goes_on_following()
    {
        using var temp = new TempDirectory();
        var (lineage, first) = await ShipAsync(temp, 300);
        var invariant = System.Globalization.CultureInfo.InvariantCulture;
        var run = await ToolRun.RunAsync("follow", temp.Combine("remote"), temp.Combine("replica"), "--poll-seconds", "0.05",
            "--until-transaction", first.ToString(invariant));
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());

        // The primary ships three more objects or so; the second is deleted (retention ran ahead of the
        // replica); a newer snapshot covers it, and more is shipped after that.
        long shipped;
        using (var env = StorageEnvironment.Open(PrimaryOptions(temp)))
        {
            var journal = Path.Combine(temp.Combine("remote"), lineage, "journal");
            var known = Directory.GetFiles(journal).Length;
            var next = 300;
            while (Directory.GetFiles(journal).Length < known + 3)
            {
                Commit(env, next, 50);
                next += 50;
                env.FlushToDataFile();
                await env.ShipArchiveAsync();
            }

            File.Delete(Directory.GetFiles(journal).Order(StringComparer.Ordinal).ElementAt(known + 1));
            var backup = await env.BackupAsync(temp.Combine("backup-2"));
            await ObjectArchive.UploadSnapshotAsync(new DirectoryArchiveDestination(temp.Combine("remote")), backup.Directory);
            Commit(env, next, 100);
            env.FlushToDataFile();
            shipped = (await env.ShipArchiveAsync()).LastShippedTransaction;
        }

        // It applies the first new object, stops at the gap, rebuilds and goes on (without the flag: exit 3, the test above).
        var with = await ToolRun.RunAsync("follow", temp.Combine("remote"), temp.Combine("replica"), "--poll-seconds", "0.05", "--resnapshot",
            "--until-transaction", shipped.ToString(invariant));
        Assert.True(with.ExitCode == ExitCodes.Ok, with.ToString());
        Assert.Contains("Re-snapshotting.", with.Out);
        Assert.Contains("was rebuilt from a snapshot because: RE5", with.Out);
        AssertReplicaHolds(temp, shipped);
    }

    [Theory]
    [InlineData("s3://bucket/prefix", "--endpoint")]
    [InlineData("ftp://host/x", "is not a destination")]
    [InlineData("/no/such/destination/dir", "does not exist")]
    public async Task Follow_says_what_a_destination_spec_lacks(string spec, string expected)
    {
        using var temp = new TempDirectory();
        var run = await ToolRun.RunAsync("follow", spec, temp.Combine("replica"));
        Assert.True(run.ExitCode == ExitCodes.Usage, run.ToString());
        Assert.Contains(expected, run.Error);
    }
}
