using Voron.Transactions;

namespace Voron.Tests.Core.Engine;

/// <summary>LC1..LC7 in StorageEnvironment.cs: Dispose never hangs, and completes or fails what is pending deterministically.</summary>
public sealed class DisposeTests
{
    private static readonly TimeSpan Hang = TimeSpan.FromSeconds(30);

    /// <summary>Runs <paramref name="action"/> on a thread of its own; false when it did not return in time (a hang: the thread is abandoned).</summary>
    private static bool Returns(Action action, out Exception? error)
    {
        Exception? caught = null;
        var thread = new Thread(() =>
        {
            try
            {
                action();
            }
            catch (Exception e)
            {
                caught = e;
            }
        })
        { IsBackground = true };
        thread.Start();
        var returned = thread.Join(Hang);
        error = caught;
        return returned;
    }

    /// <summary>
    /// Regression: Dispose hung while an explicit write transaction was open and a merged
    /// operation was queued — the merger's writer waited for the write lock, and Dispose waited
    /// for the writer; when the thread that held the transaction was the one disposing, it never
    /// returned. Now Dispose wakes every wait for the write lock (LC1): the queued operation fails
    /// with ObjectDisposedException and the open transaction is rolled back (LC3).
    /// </summary>
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Dispose_returns_while_the_same_thread_holds_a_write_transaction_and_an_operation_is_queued(bool asyncCommit)
    {
        using var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs);
        options.AsyncCommit = asyncCommit;
        var env = StorageEnvironment.Open(options);
        Task? queued = null;
        WriteTransaction? open = null;

        var returned = Returns(() =>
        {
            open = env.BeginWrite();
            open.CreateTree("t").Put("explicit"u8, [1]);
            queued = env.ExecuteAsync(tx => tx.CreateTree("t").Put("merged"u8, [2]));
            Thread.Sleep(100); // the merger's writer takes the operation and waits for the write lock (any moment is fine)
            env.Dispose(); // the same thread owns the transaction
        }, out var error);

        Assert.True(returned, "Dispose returned (no hang)");
        Assert.Null(error);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => queued!.WaitAsync(Hang));
        Assert.Throws<ObjectDisposedException>(() => open!.CreateTree("t").Put("late"u8, [3]));
        Assert.Throws<ObjectDisposedException>(open!.Commit);
        open.Dispose(); // releases the mapping: the last live transaction

        using var reopened = StorageEnvironment.Open(StoreFactory.Options(fs));
        using var read = reopened.BeginRead();
        Assert.Null(read.OpenTree("t")); // neither the rolled-back transaction nor the failed operation committed
    }

    [Fact]
    public async Task Writers_waiting_for_the_write_lock_get_object_disposed_when_the_store_is_disposed()
    {
        var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        var holder = env.BeginWrite();
        var waiting = Task.Run(() => env.BeginWrite());
        var waitingAsync = env.BeginWriteAsync();
        await Task.Delay(50);

        Assert.True(Returns(env.Dispose, out var error), "Dispose returned");
        Assert.Null(error);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => waiting.WaitAsync(Hang));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => waitingAsync.WaitAsync(Hang));
        holder.Dispose();
        Assert.Throws<ObjectDisposedException>(() => env.BeginWrite());
    }

    [Fact]
    public async Task An_explicit_commit_under_way_when_dispose_begins_finishes_and_is_durable()
    {
        using var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs);
        using var committing = new ManualResetEventSlim();
        using var go = new ManualResetEventSlim();
        options.CommitHook = step =>
        {
            if (step == CommitStep.JournalWrite && !committing.IsSet)
            {
                committing.Set();
                Assert.True(go.Wait(Hang));
            }
        };
        var env = StorageEnvironment.Open(options);
        var tx = env.BeginWrite();
        tx.CreateTree("t").Put("k"u8, [1]);
        var commit = Task.Run(tx.Commit);
        Assert.True(committing.Wait(Hang));

        var disposing = Task.Run(env.Dispose);
        Thread.Sleep(50);
        Assert.False(disposing.IsCompleted, "Dispose waits for the commit under way (LC3)");
        go.Set();
        await commit.WaitAsync(Hang); // the commit finished
        tx.Dispose();
        await disposing.WaitAsync(Hang); // Dispose returned

        using var reopened = StorageEnvironment.Open(StoreFactory.Options(fs));
        using var read = reopened.BeginRead();
        Assert.Equal([1], read.OpenTree("t")!.Get("k"u8));
    }

    [Fact]
    public async Task Dispose_or_begin_write_from_inside_a_merged_operation_throws_instead_of_waiting_for_itself()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        Exception? fromDispose = null, fromBeginWrite = null;
        await env.ExecuteAsync(tx =>
        {
            fromDispose = Record(env.Dispose);
            fromBeginWrite = Record(() => env.BeginWrite());
            tx.CreateTree("t").Put("k"u8, [1]);
        }).WaitAsync(Hang);

        Assert.IsType<InvalidOperationException>(fromDispose);
        Assert.IsType<InvalidOperationException>(fromBeginWrite);
        using var read = env.BeginRead();
        Assert.NotNull(read.OpenTree("t"));
    }

    [Fact]
    public async Task Dispose_waits_for_a_flush_under_way_and_no_flush_starts_after_it()
    {
        using var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs);
        using var flushing = new ManualResetEventSlim();
        using var go = new ManualResetEventSlim();
        options.FlushHook = step =>
        {
            if (step == Voron.Flushing.FlushStep.PagesWritten && !flushing.IsSet)
            {
                flushing.Set();
                Assert.True(go.Wait(Hang));
            }
        };
        var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, [1]);
            tx.Commit();
        }

        var flush = Task.Run(env.FlushToDataFile);
        Assert.True(flushing.Wait(Hang));
        var closing = Task.Run(env.CloseWithoutFlush);
        Thread.Sleep(50);
        Assert.False(closing.IsCompleted, "the files are not released under a flush (LC5)");
        go.Set();
        await flush.WaitAsync(Hang);
        await closing.WaitAsync(Hang);
        Assert.Throws<ObjectDisposedException>(() => env.FlushToDataFile());

        using var reopened = StorageEnvironment.Open(StoreFactory.Options(fs));
        using var read = reopened.BeginRead();
        Assert.Equal([1], read.OpenTree("t")!.Get("k"u8));
    }

    private static Exception? Record(Action action)
    {
        try
        {
            action();
            return null;
        }
        catch (Exception e)
        {
            return e;
        }
    }

    [Fact]
    public void An_in_memory_store_deletes_its_files_at_Dispose_and_a_reader_still_open_reads_on_until_it_ends()
    {
        var options = StorageEnvironmentOptions.CreateInMemory();
        var files = Assert.IsType<Voron.Platform.Memory.InMemoryFileSystem>(options.FileSystem);
        var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("users").Put("users/1"u8, "{\"name\":\"Ada\"}"u8);
            tx.Commit();
        }

        Assert.True(files.FileCount > 0);
        var reader = env.BeginRead();
        Assert.True(reader.OpenTree("users")!.TryGet("users/1"u8, out var value)); // a span into the store's memory
        env.Dispose();

        Assert.Equal(0, files.FileCount); // LC7: gone once disposed
        Assert.Equal("{\"name\":\"Ada\"}"u8.ToArray(), value.ToArray()); // LC6: the reader's memory is still mapped
        reader.Dispose();

        using var again = StorageEnvironment.Open(options); // the same options make a new, empty store
        using var read = again.BeginRead();
        Assert.Null(read.OpenTree("users"));
    }

    [Fact]
    public void An_in_memory_store_closed_without_its_final_flush_keeps_its_files_for_the_reopen_that_recovers()
    {
        var options = StorageEnvironmentOptions.CreateInMemory();
        var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("users").Put("users/1"u8, "{}"u8);
            tx.Commit();
        }

        env.CloseWithoutFlush();

        using var reopened = StorageEnvironment.Open(options);
        using var read = reopened.BeginRead();
        Assert.Equal("{}"u8.ToArray(), read.OpenTree("users")!.Get("users/1"u8));
    }
}
