using Voron.LoadTests.Data;
using Voron.LoadTests.Experiments.Replicate;

namespace Voron.LoadTests.Experiments;

internal sealed partial class ReplicateExperiment
{
    internal const string FollowSummaryTable = "follower lag";
    internal const string FollowRunsTable = "follower lag runs";
    internal const double FollowTargetP99Ms = 1000;

    /// <summary>The steady load the primary carries while a replica follows it: commits per second, one put each.</summary>
    internal const int FollowCommitsPerSecond = 200;

    /// <summary>How often the replica lists the destination for new objects (ReplicaOptions.PollInterval).</summary>
    internal static readonly TimeSpan FollowPollInterval = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// A read replica's lag under a steady write load: for each destination, in runs whose order
    /// reverses every other run, a primary that ships to it uploads a snapshot, a replica opens from
    /// it (<see cref="StorageEnvironment.OpenReplica"/>), and the primary then commits
    /// <see cref="FollowCommitsPerSecond"/> one-put transactions a second, paced, one writer. Each
    /// transaction's lag is from its acknowledgement on the primary to the moment
    /// <see cref="StorageEnvironment.WaitForTransactionAsync"/> on the replica returns for it (the replica
    /// has published it to readers). Percentiles over every transaction of every run.
    /// </summary>
    private static async Task MeasureFollowAsync(ExperimentContext context, Report report, ArchiveTargets targets, int runs)
    {
        var seconds = context.Quick ? 3 : 20;
        var values = new RealisticJson(Seed + 1);
        var pool = Enumerable.Range(0, 64).Select(_ => values.Next(ValueBytes, ValueBytes)).ToArray();
        var measured = ArchiveTargets.All.Where(v => targets.WhyNot(v) == null).ToList();
        report.AddFact("followSecondsPerRun", seconds);
        report.AddFact("followCommitsPerSecond", FollowCommitsPerSecond);
        report.AddFact("followPollIntervalMs", FollowPollInterval.TotalMilliseconds);

        var lags = measured.ToDictionary(v => v, _ => new LatencySample());
        for (var run = 1; run <= runs; run++)
        {
            foreach (var variant in InRunOrder(measured, run))
            {
                var sample = await FollowOnceAsync(context, targets, variant, seconds, pool).ConfigureAwait(false);
                lags[variant].AddAll(sample);
                context.Progress($"follower lag run {run} of {runs}, {variant,-9}: {sample.Count:N0} transactions, p50 {sample.Median:F0} ms, p99 {sample.Percentile(99):F0} ms");
                report.AddRow(
                    ("table", FollowRunsTable),
                    ("variant", variant),
                    ("run", run),
                    ("transactions", sample.Count),
                    ("p50Ms", sample.Median),
                    ("p99Ms", sample.Percentile(99)),
                    ("maxMs", sample.Percentile(100)));
            }
        }

        foreach (var variant in ArchiveTargets.All)
        {
            if (targets.WhyNot(variant) is { } skipped)
            {
                report.AddRow(("table", FollowSummaryTable), ("variant", variant), ("skipped", skipped));
                continue;
            }

            var sample = lags[variant];
            report.AddRow(
                ("table", FollowSummaryTable),
                ("variant", variant),
                ("runs", runs),
                ("transactions", sample.Count),
                ("p50Ms", sample.Median),
                ("p90Ms", sample.Percentile(90)),
                ("p99Ms", sample.Percentile(99)),
                ("maxMs", sample.Percentile(100)),
                ("target", $"p99 <= {FollowTargetP99Ms:N0} ms"),
                ("met", sample.Percentile(99) <= FollowTargetP99Ms));
        }

        report.AddNote($"follower lag: per destination and run, a fresh primary (Durable, a journal archive, ArchiveDestination = that destination, " +
                       "the defaults of ArchiveMaxDelay and ArchiveShippingInterval) uploads a snapshot, a replica opens from the destination " +
                       $"(ReplicaOptions.PollInterval = {FollowPollInterval.TotalMilliseconds:N0} ms), then the primary commits {FollowCommitsPerSecond} transactions a second " +
                       $"for {seconds} s, paced, each one put of a {ValueBytes}-byte value through ExecuteAsync. A transaction's lag runs from its acknowledgement on the " +
                       "primary to the return of WaitForTransactionAsync for it on the replica (published to the replica's readers), both in this process; " +
                       "it holds the primary's journal file rotation by age, the release into the archive, the upload, the replica's next listing and download, and the apply. " +
                       $"Percentiles over every transaction of every run (nearest rank). Target: p99 at most {FollowTargetP99Ms:N0} ms against loopback.");
    }

    /// <summary>One primary and its replica through <paramref name="variant"/>; the lag of every transaction the primary committed after the replica opened.</summary>
    private static async Task<LatencySample> FollowOnceAsync(ExperimentContext context, ArchiveTargets targets, string variant, int seconds, byte[][] pool)
    {
        var directory = context.NewDirectory("follow-primary");
        var archive = context.NewDirectory("follow-archive");
        var backup = context.NewDirectory("follow-backup");
        var replicaDirectory = context.NewDirectory("follow-replica");
        var destination = await targets.OpenAsync(variant).ConfigureAwait(false);
        try
        {
            var options = context.Disk.VoronOptions(directory);
            options.JournalArchiveDirectory = archive;
            options.ArchiveDestination = destination;
            using var primary = StorageEnvironment.Open(options);
            await primary.ExecuteAsync(tx => tx.CreateTree(Tree)).ConfigureAwait(false);
            DeleteDirectory(backup);
            var snapshot = await primary.BackupAsync(backup).ConfigureAwait(false);
            await ObjectArchive.UploadSnapshotAsync(destination, snapshot.Directory).ConfigureAwait(false);
            DeleteDirectory(replicaDirectory);
            using var replica = StorageEnvironment.OpenReplica(destination, replicaDirectory, new ReplicaOptions { PollInterval = FollowPollInterval });

            var sample = new LatencySample();
            var waits = new List<Task>();
            var clock = Stopwatch.StartNew();
            var total = seconds * FollowCommitsPerSecond;
            for (var i = 0; i < total; i++)
            {
                var due = TimeSpan.FromSeconds((double)i / FollowCommitsPerSecond);
                if (due > clock.Elapsed)
                {
                    await Task.Delay(due - clock.Elapsed).ConfigureAwait(false);
                }

                var key = KvDataSet.Key(i);
                var value = pool[i % pool.Length];
                await primary.ExecuteAsync(tx => tx.CreateTree(Tree).Put(key, value)).ConfigureAwait(false);
                var id = primary.LastCommittedTransactionId; // one writer: the transaction just acknowledged
                var acknowledged = Stopwatch.GetTimestamp();
                waits.Add(replica.WaitForTransactionAsync(id).ContinueWith(t =>
                {
                    t.GetAwaiter().GetResult(); // a replica that stopped fails the run, never a figure
                    var lag = Stopwatch.GetTimestamp() - acknowledged;
                    lock (sample)
                    {
                        sample.AddTicks(lag);
                    }
                }, TaskScheduler.Default));
            }

            var all = Task.WhenAll(waits);
            if (await Task.WhenAny(all, Task.Delay(TimeSpan.FromMinutes(2))).ConfigureAwait(false) != all)
            {
                throw new InvalidOperationException($"follower lag through {variant}: the replica had not applied the primary's transactions two minutes after the last commit; " +
                                                    $"replica: {replica.Replica}; primary's shipping: {primary.ArchiveShipping}");
            }

            await all.ConfigureAwait(false);
            return sample;
        }
        finally
        {
            (destination as IDisposable)?.Dispose();
            DeleteDirectory(directory);
            DeleteDirectory(archive);
            DeleteDirectory(backup);
            DeleteDirectory(replicaDirectory);
        }
    }
}
