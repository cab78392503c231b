using System.Text;
using Voron.Tests.Core.Engine;
using Voron.Transactions;

namespace Voron.Tests.Core.Merging;

/// <summary>
/// M9: a batch built on the in-flight commit reads that commit's pages through it, not through the
/// page table, so the commit's generation stays counted while that batch may read them and its
/// buffers are not handed to anyone else meanwhile (PageBufferPool PB1).
/// </summary>
public sealed class InFlightCommitPagesTests
{
    private static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Commit N is visible and its committer is still finishing (acknowledging its operations: the
    /// in-flight task has not completed) when a flush writes N's pages to the data file, drops
    /// N's versions from the page table and releases their buffers in its maintenance pass. The
    /// next batch sees N still in flight and builds on it, reading N's pages from N itself. Those
    /// reads were outside every counted generation: N's batch had ended and the next one began
    /// after the removal, so the pass released the buffers under it — poisoned bytes in Debug
    /// ("rule B1: expected a tree page numbered 2, found flags 219"), another page's bytes in
    /// Release once a copy took the buffer. N's generation is now held (GenerationLease) until
    /// its WriteAndPublish returns, and by the batch built on it until that batch ends. The
    /// commit hook holds N's committer after step 5, so the interleaving is exact, on both paths:
    /// N written by the merger's committer and by the submitting caller (MG1).
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_batch_built_on_a_visible_commit_whose_versions_were_flushed_reads_its_pages_intact(bool callerRuns)
    {
        using var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs);
        options.AsyncCommit = true;
        options.CallerRuns = callerRuns;
        using var visible = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        var holdNext = 0;
        options.CommitHook = step =>
        {
            if (step == CommitStep.Visible && Interlocked.Exchange(ref holdNext, 0) == 1)
            {
                visible.Set();
                release.Wait(HangGuard); // N stays in flight until the next batch has read it
            }
        };
        using var env = StorageEnvironment.Open(options);
        await env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(0), Value(0))).WaitAsync(HangGuard);

        Volatile.Write(ref holdNext, 1);
        var first = Task.Run(() => env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(1), Value(1)))); // a pool thread: the caller may run it (MG2)
        Assert.True(visible.Wait(HangGuard), "commit N became visible");
        Assert.NotNull(env.FlushToDataFile()); // up to N: its versions leave the page table, then the maintenance pass releases buffers

        using var ran = new ManualResetEventSlim();
        var sawFirst = false;
        Task second;
        try
        {
            second = env.ExecuteAsync(tx =>
            {
                try
                {
                    var tree = tx.CreateTree("t");
                    sawFirst = tree.TryGet(Key(1), out var one) && one.SequenceEqual(Value(1));
                    tree.Put(Key(2), Value(2));
                }
                finally
                {
                    ran.Set();
                }
            });
            Assert.True(ran.Wait(HangGuard), "the next batch ran");
            Assert.False(first.IsCompleted, "N was still in flight when the next batch read it");
        }
        finally
        {
            release.Set();
        }

        await first.WaitAsync(HangGuard);
        await second.WaitAsync(HangGuard); // threw CorruptionException: the batch read N's pages from released buffers
        Assert.True(sawFirst, "the next batch was built on N");
        using var read = env.BeginRead();
        var t = read.OpenTree("t")!;
        for (var i = 0; i < 3; i++)
        {
            Assert.Equal(Value(i), t.Get(Key(i)));
        }

        env.CheckIntegrity();
    }

    private static byte[] Key(int i) => Encoding.ASCII.GetBytes($"key-{i:D4}");

    private static byte[] Value(int i) => Encoding.ASCII.GetBytes($"value {i} ".PadRight(300, (char)('a' + i)));
}
