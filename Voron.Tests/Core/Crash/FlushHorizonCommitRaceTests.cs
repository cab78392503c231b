using Voron.Flushing;
using Voron.Transactions;

namespace Voron.Tests.Core.Crash;

/// <summary>
/// A flush that fixes its horizon while a commit is between its steps (FL9 in
/// Flushing/DataFileFlusher.cs): the batch it takes must end exactly at the horizon it pinned,
/// so pruning (PageTable PT6) never drops a version the flush is about to write.
/// </summary>
public sealed class FlushHorizonCommitRaceTests
{
    private const int Keys = 400; // several leaf pages and a branch: the root is rewritten by every commit

    /// <summary>
    /// Regression: a commit became visible (its id the committed one) before it was queued for the
    /// flusher. A flush that fixed its horizon F in that gap pinned F but took a batch ending at
    /// F - 1; the next commit's publish pruned every page's version F - 1 (not the newest &lt;= F, no
    /// reader between), so the flush skipped those pages — or wrote another page's bytes from a
    /// reused scratch slot — while its header claimed F - 1. A crash before the next flush then
    /// replayed F's page diffs onto stale pages. Fixed by queueing a commit before it becomes
    /// visible; a batch that does not end at the horizon now fails the store instead of writing.
    /// The commit here pauses at each of its steps after publishing while a flush fixes its horizon
    /// and takes its batch, and the next commit lands before the flush writes.
    /// </summary>
    [Theory]
    [InlineData(nameof(CommitStep.Published))]
    [InlineData(nameof(CommitStep.Enqueued))]
    [InlineData(nameof(CommitStep.Visible))]
    public async Task A_flush_that_fixes_its_horizon_during_a_commit_writes_the_batch_it_pinned_and_a_crash_after_it_recovers(string stepName)
    {
        var step = Enum.Parse<CommitStep>(stepName);
        using var machine = new CrashFileSystem(17, "/data");
        var options = StorageEnvironmentOptions.ForFileSystem("/data/store", machine);
        options.BackgroundFlush = false;
        options.JournalFileSize = 1 << 20;

        using var batchTaken = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        Task? flush = null;
        var armed = 0;
        StorageEnvironment? env = null;
        options.FlushHook = at =>
        {
            if (at == FlushStep.BatchTaken && Volatile.Read(ref armed) == 2)
            {
                batchTaken.Set();
                Assert.True(release.Wait(TimeSpan.FromSeconds(30)), "the test releases the flush");
            }
        };
        options.CommitHook = at =>
        {
            if (at == step && Interlocked.CompareExchange(ref armed, 2, 1) == 1)
            {
                flush = Task.Run(() => env!.FlushToDataFile());
                // The flush pauses after taking its batch, or finds nothing to flush and ends.
                WaitHandle.WaitAny([batchTaken.WaitHandle, ((IAsyncResult)flush).AsyncWaitHandle], TimeSpan.FromSeconds(30));
            }
        };

        env = StorageEnvironment.Open(options);
        try
        {
            CommitGeneration(env, 1);
            env.FlushToDataFile();
            CommitGeneration(env, 2); // F - 1: unflushed
            Volatile.Write(ref armed, 1);
            CommitGeneration(env, 3); // F: the flush fixes its horizon at the paused step
            CommitGeneration(env, 4); // F + 1: publishes (and prunes) while the flush is paused
            release.Set();
            Assert.NotNull(flush);
            await flush!;

            Assert.False(env.IsFailed, $"{step}: the store failed: {env.Failure}");
            using (var read = env.BeginRead())
            {
                Expect(read, 4, step, "before the crash");
            }

            // A power loss now: the data file and header hold what the flush synced, the journal
            // the rest; recovery replays the journal's page diffs onto the data file's pages.
            using var after = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 0));
            var reopened = StorageEnvironmentOptions.ForFileSystem("/data/store", after);
            reopened.BackgroundFlush = false;
            reopened.JournalFileSize = 1 << 20;
            using var recovered = StorageEnvironment.Open(reopened);
            using (var read = recovered.BeginRead())
            {
                Expect(read, 4, step, "after a power loss and recovery");
            }

            recovered.CheckIntegrity();
        }
        finally
        {
            release.Set();
            env.Dispose();
        }
    }

    /// <summary>
    /// Generation 1 writes every key; each later one only its own share (2: even keys, 3: i % 4 ==
    /// 1, 4: i % 4 == 3), on the same pages: a page that misses generation 2's version in the data
    /// file cannot be rebuilt by replaying 3 and 4 on top of it.
    /// </summary>
    private static void CommitGeneration(StorageEnvironment env, int generation)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (var i = 0; i < Keys; i++)
        {
            if (generation == 1 || WrittenBy(i) == generation)
            {
                tree.Put(Key(i), BitConverter.GetBytes((long)generation));
            }
        }

        tx.Commit();
    }

    private static int WrittenBy(int key) => key % 2 == 0 ? 2 : key % 4 == 1 ? 3 : 4;

    private static void Expect(ReadTransaction read, int last, CommitStep step, string when)
    {
        var tree = read.OpenTree("t")!;
        for (var i = 0; i < Keys; i++)
        {
            var expected = WrittenBy(i) <= last ? WrittenBy(i) : 1;
            Assert.True(tree.TryGet(Key(i), out var value), $"{step}, {when}: key {i} is missing");
            Assert.True(BitConverter.ToInt64(value) == expected, $"{step}, {when}: key {i} holds generation {BitConverter.ToInt64(value)}, not {expected}");
        }
    }

    private static byte[] Key(int i) => System.Text.Encoding.ASCII.GetBytes($"key-{i:D5}");
}
