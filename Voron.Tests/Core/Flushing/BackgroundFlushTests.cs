using Voron.Tests.Core.Journal;

namespace Voron.Tests.Core.Flushing;

public sealed class BackgroundFlushTests
{
    private static void Commit(StorageEnvironment env, int i)
    {
        using var tx = env.BeginWrite();
        var key = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(key, i);
        tx.CreateTree("t").Put(key, new byte[1000]);
        tx.Commit();
    }

    [Fact]
    public void Commits_made_during_a_background_flush_queue_at_most_one_more_flush_not_one_each()
    {
        // Regression: every commit made while the backlog was above FlushThresholdBytes woke the
        // flusher once more, so the commits made during one flush queued a flush each (each a
        // data-file fdatasync and a header write): dozens a second under merged writes, and
        // single-threaded durable commits ran at half speed beside them.
        var fs = new RecordingFileSystem(StoreFactory.NewFileSystem());
        var options = StorageEnvironmentOptions.ForFileSystem("/store", fs);
        options.MaxDataFileSize = 4L << 30;
        options.FlushThresholdBytes = 64 * 1024;
        options.FlushInterval = TimeSpan.FromHours(1); // only the threshold wakes the flusher
        using var flushing = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        using var env = StorageEnvironment.Open(options);
        var committer = Environment.CurrentManagedThreadId;
        fs.BeforeCall = line =>
        {
            // The background flush's data-file sync, not the commit's own when it grows the data
            // file (Pager.Reserve, PG5), which runs on this thread.
            if (line.StartsWith("FlushData /store/voron.data", StringComparison.Ordinal) && !flushing.IsSet &&
                Environment.CurrentManagedThreadId != committer)
            {
                flushing.Set();
                Assert.True(release.Wait(TimeSpan.FromSeconds(30)), "the test releases the flush");
            }
        };

        var i = 0;
        while (!flushing.IsSet && i < 10_000)
        {
            Commit(env, i++); // until the backlog crosses the threshold and a flush starts
        }

        Assert.True(flushing.Wait(TimeSpan.FromSeconds(30)), "the backlog crossed the threshold and woke the flusher");
        for (var k = 0; k < 50; k++)
        {
            Commit(env, i++); // the backlog stays above the threshold: the blocked flush has not removed it yet
        }

        var pending = env.PendingFlushWakes;
        release.Set();
        Assert.True(pending <= 1, $"{pending} background flushes were queued by 50 commits made during one flush");
    }
}
