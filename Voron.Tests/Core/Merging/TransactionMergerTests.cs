using Voron.Tests.Core.Journal;

namespace Voron.Tests.Core.Merging;

public sealed class TransactionMergerTests
{
    private static byte[] Key(int i)
    {
        var key = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(key, i);
        return key;
    }

    private static StorageEnvironmentOptions Options(Voron.Platform.IFileSystem fs, bool asyncCommit = true, int maxBatch = 4096)
    {
        var options = StorageEnvironmentOptions.ForFileSystem("/store", fs);
        options.BackgroundFlush = false;
        options.JournalFileSize = 4 << 20;
        options.MaxDataFileSize = 4L << 30;
        options.AsyncCommit = asyncCommit;
        options.MaxBatchOperations = maxBatch;
        return options;
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Concurrent_operations_share_journal_flushes_and_all_become_durable(bool asyncCommit)
    {
        using var fs = StoreFactory.NewFileSystem();
        const int operations = 2000;
        using (var env = StorageEnvironment.Open(Options(fs, asyncCommit)))
        {
            var before = env.JournalWrites;
            var submitted = 0;
            // Holds the writer until every operation is queued, so they merge however the thread
            // pool happens to schedule the submitting tasks on a loaded machine.
            var blocker = env.ExecuteAsync(_ => SpinWait.SpinUntil(() => Volatile.Read(ref submitted) == operations, TimeSpan.FromSeconds(30)));
            var tasks = Enumerable.Range(0, operations).Select(i => Task.Run(() =>
            {
                var task = env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(i), Encoding.UTF8.GetBytes($"value {i}")));
                Interlocked.Increment(ref submitted);
                return task;
            })).ToArray();
            await Task.WhenAll([blocker, .. tasks]);

            var flushes = env.JournalWrites - before;
            Assert.True(flushes < operations / 4, $"{operations} operations took {flushes} journal flushes");
        }

        using var reopened = StorageEnvironment.Open(Options(fs, asyncCommit));
        using var read = reopened.BeginRead();
        Assert.Equal(operations, read.OpenTree("t")!.Count);
        reopened.CheckIntegrity();
    }

    [Fact]
    public async Task Unmerged_mode_gives_each_operation_its_own_flush()
    {
        using var env = StorageEnvironment.Open(Options(StoreFactory.NewFileSystem(), asyncCommit: false, maxBatch: 1));
        var before = env.JournalWrites;
        await Task.WhenAll(Enumerable.Range(0, 50).Select(i => env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(i), [1]))));

        Assert.Equal(50, env.JournalWrites - before);
    }

    [Fact]
    public async Task An_operation_that_throws_fails_alone_and_its_batch_mates_commit()
    {
        using var env = StorageEnvironment.Open(Options(StoreFactory.NewFileSystem()));
        var tasks = Enumerable.Range(0, 300).Select(i => env.ExecuteAsync(tx =>
        {
            tx.CreateTree("t").Put(Key(i), [1]);
            if (i % 7 == 3)
            {
                throw new InvalidOperationException($"operation {i} refuses");
            }

            return i;
        })).ToArray();

        for (var i = 0; i < tasks.Length; i++)
        {
            if (i % 7 == 3)
            {
                var error = await Assert.ThrowsAsync<InvalidOperationException>(() => tasks[i]);
                Assert.Equal($"operation {i} refuses", error.Message);
            }
            else
            {
                Assert.Equal(i, await tasks[i]);
            }
        }

        using var read = env.BeginRead();
        var tree = read.OpenTree("t")!;
        for (var i = 0; i < tasks.Length; i++)
        {
            Assert.Equal(i % 7 != 3, tree.TryGet(Key(i), out _));
        }
    }

    [Fact]
    public async Task Readers_see_an_operation_only_after_its_task_completes()
    {
        using var env = StorageEnvironment.Open(Options(StoreFactory.NewFileSystem()));
        for (var round = 0; round < 200; round++)
        {
            var k = round;
            var task = env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(k), [1]));
            // Until the task completes the write may or may not be visible; once it completes it must be.
            await task;
            using var read = env.BeginRead();
            Assert.True(read.OpenTree("t")!.TryGet(Key(k), out _), $"round {round}: acknowledged write not visible");
        }
    }

    [Fact]
    public async Task Operations_in_one_batch_see_each_others_writes_in_submission_order()
    {
        using var env = StorageEnvironment.Open(Options(StoreFactory.NewFileSystem()));
        var tasks = Enumerable.Range(0, 500).Select(_ => env.ExecuteAsync(tx =>
        {
            var tree = tx.CreateTree("counter");
            var current = tree.TryGet("n"u8, out var bytes) ? BinaryPrimitives.ReadInt32LittleEndian(bytes) : 0;
            var next = new byte[4];
            BinaryPrimitives.WriteInt32LittleEndian(next, current + 1);
            tree.Put("n"u8, next);
            return current + 1;
        })).ToArray();

        var results = await Task.WhenAll(tasks);

        Assert.Equal(Enumerable.Range(1, 500), results.Order());
        using var read = env.BeginRead();
        Assert.Equal(500, BinaryPrimitives.ReadInt32LittleEndian(read.OpenTree("counter")!.Get("n"u8)));
    }

    [Fact]
    public async Task Canceled_operation_never_runs()
    {
        using var env = StorageEnvironment.Open(Options(StoreFactory.NewFileSystem()));
        using var cancel = new CancellationTokenSource();
        await cancel.CancelAsync();
        var ran = false;

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => env.ExecuteAsync(_ => { ran = true; }, cancel.Token));

        Assert.False(ran);
    }

    [Fact]
    public async Task Failed_journal_write_fails_its_batch_and_every_later_operation_and_loses_nothing_acknowledged()
    {
        using var memory = StoreFactory.NewFileSystem();
        var fs = new RecordingFileSystem(memory);
        var env = StorageEnvironment.Open(Options(fs));
        var acknowledged = new System.Collections.Concurrent.ConcurrentBag<int>();
        var failures = 0;
        var tasks = Enumerable.Range(0, 3000).Select(async i =>
        {
            if (i == 1500)
            {
                fs.FailWhen = line => line.StartsWith("FlushData /store/journal/", StringComparison.Ordinal);
            }

            try
            {
                await env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(i), [1]));
                acknowledged.Add(i);
            }
            catch (EnvironmentFailedException)
            {
                Interlocked.Increment(ref failures);
            }
        }).ToArray();
        await Task.WhenAll(tasks);

        Assert.True(failures > 0, "the injected failure failed some operations");
        Assert.Throws<EnvironmentFailedException>(() => env.BeginWrite());
        await Assert.ThrowsAsync<EnvironmentFailedException>(() => env.ExecuteAsync(_ => { }));
        env.CloseWithoutFlush();

        using var reopened = StorageEnvironment.Open(Options(fs));
        using var read = reopened.BeginRead();
        var tree = read.OpenTree("t");
        foreach (var i in acknowledged)
        {
            Assert.True(tree != null && tree.TryGet(Key(i), out _), $"acknowledged operation {i} was lost");
        }
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_journal_flush_failing_with_an_unexpected_exception_type_fails_the_store_and_leaves_no_operation_hanging(bool asyncCommit)
    {
        // Regression: the writer waited for a failed in-flight commit expecting only I/O-type
        // exceptions; anything else ended the writer without draining its queue, and every
        // operation submitted after it hung. The journal now fails the store whatever the type.
        var fs = new RecordingFileSystem(StoreFactory.NewFileSystem());
        var env = StorageEnvironment.Open(Options(fs, asyncCommit, maxBatch: 8));
        var flushes = 0;
        fs.FailWith = line => new InvalidOperationException($"injected: a file system bug at {line}");
        fs.FailWhen = line => line.StartsWith("FlushData /store/journal/", StringComparison.Ordinal) && ++flushes == 5;
        var tasks = Enumerable.Range(0, 400).Select(i => Task.Run(() => env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(i), [1])))).ToArray();

        var failed = 0;
        foreach (var task in tasks)
        {
            try
            {
                await task.WaitAsync(TimeSpan.FromSeconds(30)); // a TimeoutException here is the hang
            }
            catch (EnvironmentFailedException)
            {
                failed++;
            }
        }

        Assert.True(failed > 0, "the injected failure failed some operations");
        Assert.Throws<EnvironmentFailedException>(() => env.BeginWrite());
        await Assert.ThrowsAsync<EnvironmentFailedException>(() => env.ExecuteAsync(_ => { }).WaitAsync(TimeSpan.FromSeconds(30)));
        env.CloseWithoutFlush();
    }

    [Fact]
    public async Task A_submitter_waiting_for_room_when_the_environment_fails_is_refused_not_left_hanging()
    {
        // M5: the writer stops on the failure and drains the full queue; the drain makes room,
        // and the waiting submitter must then be drained too or refused, never left queued.
        var options = Options(StoreFactory.NewFileSystem(), maxBatch: 1);
        options.MaxQueuedOperations = 2;
        var env = StorageEnvironment.Open(options);
        using var gate = new ManualResetEventSlim();
        using var running = new ManualResetEventSlim();
        var blocker = env.ExecuteAsync(tx =>
        {
            running.Set();
            gate.Wait(TimeSpan.FromSeconds(60));
            tx.CreateTree("t").Put(Key(100), [1]);
        });
        Assert.True(running.Wait(TimeSpan.FromSeconds(30)), "the writer started the first operation");
        var queued = Enumerable.Range(0, 2).Select(i => env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(i), [1]))).ToList();
        var waiting = env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(2), [1]));
        Assert.False(waiting.IsCompleted, "the queue is full: the third submitter waits for room");

        env.Fail(new IOException("injected failure"));
        gate.Set();

        foreach (var task in queued.Append(waiting).Prepend(blocker))
        {
            var error = await Assert.ThrowsAnyAsync<Exception>(() => task.WaitAsync(TimeSpan.FromSeconds(30)));
            Assert.IsType<EnvironmentFailedException>(error); // a TimeoutException here is the hang
        }

        env.CloseWithoutFlush();
    }

    [Fact]
    public async Task Operations_submitted_while_the_environment_fails_all_complete_none_is_left_hanging()
    {
        // M5: the writer stops on a failure and fails what it finds queued; a submission that
        // passes the usability check just before the failure but reaches the queue after that
        // drain must fail too, not stay queued forever. The window is a few instructions wide and
        // this test is not known to hit it: it guards the rule (TransactionMerger's design notes),
        // it does not reproduce a failure. Callers submit in a loop while another thread fails
        // the environment at a random moment.
        var random = new Random(20261122);
        for (var round = 0; round < 300; round++)
        {
            var env = StorageEnvironment.Open(Options(StoreFactory.NewFileSystem(), asyncCommit: round % 2 == 0, maxBatch: 8));
            var failAfter = random.Next(0, 400);
            var callers = Enumerable.Range(0, 6).Select(caller => Task.Run(async () =>
            {
                for (var i = 0; ; i++)
                {
                    try
                    {
                        await env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key((caller << 20) + i), [1])).WaitAsync(TimeSpan.FromSeconds(30));
                    }
                    catch (EnvironmentFailedException)
                    {
                        return;
                    }
                }
            })).ToList();
            var failer = Task.Run(() =>
            {
                Thread.SpinWait(failAfter * 100);
                env.Fail(new IOException("injected failure"));
            });
            await failer;
            await Task.WhenAll(callers); // a hung operation fails its caller with TimeoutException
            env.CloseWithoutFlush();
        }
    }

    [Fact]
    public async Task Dispose_fails_queued_operations_deterministically_and_leaves_no_task_hanging()
    {
        var env = StorageEnvironment.Open(Options(StoreFactory.NewFileSystem()));
        using var gate = new ManualResetEventSlim();
        using var running = new ManualResetEventSlim();
        var blocker = env.ExecuteAsync(_ =>
        {
            running.Set();
            gate.Wait(TimeSpan.FromSeconds(60));
        });
        Assert.True(running.Wait(TimeSpan.FromSeconds(30)), "the writer started the first operation");
        var queued = Enumerable.Range(0, 100).Select(i => env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(i), [1]))).ToArray();

        var disposing = Task.Run(env.Dispose);
        await Task.Delay(50);
        gate.Set();
        await disposing;

        await blocker;
        foreach (var task in queued)
        {
            Assert.True(task.IsCompleted, "no operation is left hanging after Dispose");
            Assert.True(task.IsCompletedSuccessfully || task.Exception?.InnerException is ObjectDisposedException);
        }

        await Assert.ThrowsAsync<ObjectDisposedException>(() => env.ExecuteAsync(_ => { }));
    }

    [Fact]
    public async Task Explicit_write_transactions_interleave_with_merged_operations()
    {
        using var env = StorageEnvironment.Open(Options(StoreFactory.NewFileSystem()));
        var merged = Enumerable.Range(0, 500).Select(i => env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(i), [1]))).ToArray();
        for (var i = 500; i < 520; i++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(Key(i), [2]);
            tx.Commit();
        }

        await Task.WhenAll(merged);
        using var read = env.BeginRead();
        Assert.Equal(520, read.OpenTree("t")!.Count);
        env.CheckIntegrity();
    }
}
