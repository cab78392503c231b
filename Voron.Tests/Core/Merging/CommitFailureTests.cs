using Voron.Transactions;

namespace Voron.Tests.Core.Merging;

/// <summary>
/// C5: a commit that fails — with any exception, at any step — either leaves the store fully
/// usable (it failed before its journal record was written) or fails it, clearly (from the
/// record's write on); never a store that refuses writes without saying it failed.
/// </summary>
public sealed class CommitFailureTests
{
    public enum Path
    {
        Explicit,
        MergedSync,
        MergedAsync,
    }

    private static byte[] Key(int i)
    {
        var key = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(key, i);
        return key;
    }

    private static Exception Make(string kind, CommitStep step) => kind switch
    {
        "InvalidOperation" => new InvalidOperationException($"injected at {step}"),
#pragma warning disable CA2201 // the engine must survive the runtime's own exception types too
        "OutOfMemory" => new OutOfMemoryException($"injected at {step}"),
#pragma warning restore CA2201
        "Argument" => new ArgumentException($"injected at {step}: a record over the size limit"),
        _ => new IOException($"injected at {step}"),
    };

    public static TheoryData<string, string, string> Cases(bool beforeWrite)
    {
        var data = new TheoryData<string, string, string>();
        var steps = beforeWrite
            ? new[] { CommitStep.Prepare, CommitStep.Prepared, CommitStep.JournalWrite }
            : [CommitStep.Journaled, CommitStep.Published, CommitStep.Enqueued, CommitStep.Visible];
        foreach (var path in Enum.GetNames<Path>())
        {
            foreach (var step in steps)
            {
                foreach (var kind in new[] { "InvalidOperation", "OutOfMemory", "Argument" })
                {
                    data.Add(path, step.ToString(), kind);
                }
            }
        }

        return data;
    }

    public static TheoryData<string, string, string> BeforeTheWrite => Cases(beforeWrite: true);

    public static TheoryData<string, string, string> FromTheWriteOn => Cases(beforeWrite: false);

    /// <summary>
    /// Regression: with async commit, a batch whose commit threw a non-I/O exception before its
    /// record was written (a record over the size limit, an out-of-memory while building it) left
    /// the merger's in-flight task faulted for good: every later batch failed with that exception
    /// and BeginWrite threw it too, while the store did not report itself failed. In sync mode a
    /// failure right after the journal write left the journal one transaction ahead of memory and
    /// every later commit failed with a J1 ArgumentException. Now the first kind leaves the store
    /// fully usable and the second fails it (C5, M7).
    /// </summary>
    [Theory]
    [MemberData(nameof(BeforeTheWrite))]
    public async Task A_commit_failing_before_its_record_is_written_fails_alone_and_the_store_stays_fully_usable(string path, string stepName, string kind)
    {
        var step = Enum.Parse<CommitStep>(stepName);
        var options = Options(Enum.Parse<Path>(path));
        var failNext = 0;
        options.CommitHook = at =>
        {
            if (at == step && Interlocked.Exchange(ref failNext, 0) == 1)
            {
                throw Make(kind, at);
            }
        };
        using var env = StorageEnvironment.Open(options);
        await Write(env, Enum.Parse<Path>(path), 0);

        Interlocked.Exchange(ref failNext, 1);
        var error = await Record(() => Write(env, Enum.Parse<Path>(path), 1));

        Assert.NotNull(error);
        Assert.IsNotType<EnvironmentFailedException>(error);
        Assert.Contains($"injected at {step}", error.Message, StringComparison.Ordinal);
        Assert.False(env.IsFailed, "a clean failure does not fail the store");
        for (var i = 2; i < 6; i++)
        {
            await Write(env, Enum.Parse<Path>(path), i); // merged and explicit writes go on
            await Write(env, Path.Explicit, 100 + i);
        }

        using (var read = env.BeginRead())
        {
            var tree = read.OpenTree("t")!;
            Assert.False(tree.TryGet(Key(1), out _), "the failed commit's write never shows");
            Assert.True(tree.TryGet(Key(0), out _) && tree.TryGet(Key(5), out _) && tree.TryGet(Key(105), out _));
        }

        env.FlushToDataFile();
        env.CheckIntegrity();
    }

    [Theory]
    [MemberData(nameof(FromTheWriteOn))]
    public async Task A_commit_failing_from_its_record_write_on_fails_the_store_clearly_and_recovery_keeps_every_acknowledged_write(string path, string stepName, string kind)
    {
        var step = Enum.Parse<CommitStep>(stepName);
        using var fs = StoreFactory.NewFileSystem();
        var options = Options(Enum.Parse<Path>(path), fs);
        var failNext = 0;
        Exception? reported = null;
        using var observed = new ManualResetEventSlim();
        options.OnFailure = e =>
        {
            reported = e;
            observed.Set();
        };
        options.CommitHook = at =>
        {
            if (at == step && Interlocked.Exchange(ref failNext, 0) == 1)
            {
                throw Make(kind, at);
            }
        };
        var env = StorageEnvironment.Open(options);
        await Write(env, Enum.Parse<Path>(path), 0);

        Interlocked.Exchange(ref failNext, 1);
        var error = await Record(() => Write(env, Enum.Parse<Path>(path), 1));

        var failed = Assert.IsType<EnvironmentFailedException>(error);
        Assert.Contains($"injected at {step}", failed.InnerException!.Message, StringComparison.Ordinal);
        Assert.True(env.IsFailed);
        Assert.Same(failed.InnerException, env.Failure);
        Assert.True(observed.Wait(TimeSpan.FromSeconds(30)), "OnFailure was called");
        Assert.Same(env.Failure, reported);
        Assert.Throws<EnvironmentFailedException>(() => env.BeginWrite());
        await Assert.ThrowsAsync<EnvironmentFailedException>(() => env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(9), [9])).WaitAsync(TimeSpan.FromSeconds(30)));
        using (var read = env.BeginRead())
        {
            Assert.True(read.OpenTree("t")!.TryGet(Key(0), out _), "reads go on after the failure");
        }

        env.CloseWithoutFlush();
        using var reopened = StorageEnvironment.Open(Options(Path.Explicit, fs));
        using (var read = reopened.BeginRead())
        {
            var tree = read.OpenTree("t")!;
            Assert.True(tree.TryGet(Key(0), out _), "the acknowledged write survives");
            Assert.True(tree.TryGet(Key(1), out _), "the record was durable: recovery replays it");
        }

        await Write(reopened, Path.Explicit, 2);
        reopened.CheckIntegrity();
    }

    /// <summary>
    /// C4 and C5 with async commit: batch N + 1 is built on N while N is written; when N fails
    /// cleanly, N + 1's operations run again on the committed state and commit (they are not
    /// failed for N's sake, and nothing of N shows).
    /// </summary>
    [Fact]
    public async Task A_batch_built_on_a_batch_that_failed_cleanly_runs_again_without_it_and_commits()
    {
        var options = Options(Path.MergedAsync);
        options.CallerRuns = false; // the first batch must be written by the merger while this thread submits the next (MG1 would write it here)
        using var nextRan = new ManualResetEventSlim();
        using var firstCommitting = new ManualResetEventSlim();
        var journalWrites = 0;
        options.CommitHook = at =>
        {
            if (at == CommitStep.JournalWrite && Interlocked.Increment(ref journalWrites) == 2)
            {
                firstCommitting.Set();
                Assert.True(nextRan.Wait(TimeSpan.FromSeconds(30)), "the next batch ran on top of this one");
                throw new InvalidOperationException("injected: the first batch fails cleanly");
            }
        };
        using var env = StorageEnvironment.Open(options);
        await env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(0), [0]));

        var first = env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(1), [1]));
        Assert.True(firstCommitting.Wait(TimeSpan.FromSeconds(30)), "the first batch is being written"); // the second one goes to the next batch
        var runs = 0;
        var second = env.ExecuteAsync(tx =>
        {
            var tree = tx.CreateTree("t");
            tree.Put(Key(2), [tree.TryGet(Key(1), out _) ? (byte)1 : (byte)0]); // 1 when built on the first batch
            Interlocked.Increment(ref runs);
            nextRan.Set();
        });

        await Assert.ThrowsAsync<InvalidOperationException>(() => first);
        await second.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(2, runs);
        Assert.False(env.IsFailed);
        using var read = env.BeginRead();
        var t = read.OpenTree("t")!;
        Assert.False(t.TryGet(Key(1), out _));
        Assert.Equal([0], t.Get(Key(2))); // the rerun saw the committed state, without the failed batch
    }

    private static StorageEnvironmentOptions Options(Path path, Voron.Platform.Memory.InMemoryFileSystem? fs = null)
    {
        var options = StoreFactory.Options(fs ?? StoreFactory.NewFileSystem());
        options.AsyncCommit = path == Path.MergedAsync;
        return options;
    }

    private static async Task Write(StorageEnvironment env, Path path, int i)
    {
        if (path == Path.Explicit)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(Key(i), [(byte)i]);
            tx.Commit();
            return;
        }

        await env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(i), [(byte)i])).WaitAsync(TimeSpan.FromSeconds(30));
    }

    private static async Task<Exception?> Record(Func<Task> action)
    {
        try
        {
            await action();
            return null;
        }
        catch (Exception e)
        {
            return e;
        }
    }
}
