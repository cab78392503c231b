using System.Reflection;

namespace Voron.Tests.Core.Merging;

/// <summary>M6 and T7: a merged operation is synchronous, and its transaction closes when it returns.</summary>
public sealed class AsyncOperationTests
{
    private static StorageEnvironmentOptions Options(bool asyncCommit = true)
    {
        var options = StoreFactory.Options(StoreFactory.NewFileSystem());
        options.AsyncCommit = asyncCommit;
        return options;
    }

    /// <summary>
    /// Regression: <c>ExecuteAsync(async tx => { Put; await x; Put; })</c> bound to
    /// <c>ExecuteAsync&lt;T&gt;</c> with T = Task; the batch committed at the first await and the
    /// code after it wrote into the published page buffer — a write readers saw but the journal
    /// never got, and after a flush a data-file page whose checksum failed. A delegate returning
    /// a task is now refused when it is submitted (and an async lambda binds to an overload that
    /// is a compile-time error, so this test has to name T to get past the compiler).
    /// </summary>
    [Fact]
    public void A_delegate_returning_a_task_is_refused_at_submission_and_writes_nothing()
    {
        using var env = StorageEnvironment.Open(Options());
        var gate = new TaskCompletionSource();
        var ran = false;

        var error = Assert.Throws<ArgumentException>(() =>
        {
            _ = env.ExecuteAsync<Task>(async tx =>
            {
                ran = true;
                tx.CreateTree("t").Put("before"u8, [1]);
                await gate.Task;
                tx.CreateTree("t").Put("after"u8, [2]);
            });
        });
        gate.SetResult();

        Assert.Contains("must be synchronous", error.Message, StringComparison.Ordinal);
        Assert.Equal("operation", error.ParamName);
        Assert.False(ran);
        using var read = env.BeginRead();
        Assert.Null(read.OpenTree("t"));
    }

    [Fact]
    public void Delegates_returning_value_tasks_or_tasks_of_results_are_refused_too()
    {
        using var env = StorageEnvironment.Open(Options());
        Assert.Throws<ArgumentException>(() => { _ = env.ExecuteAsync<Task<int>>(_ => Task.FromResult(1)); });
        Assert.Throws<ArgumentException>(() => { _ = env.ExecuteAsync<ValueTask>(_ => ValueTask.CompletedTask); });
        Assert.Throws<ArgumentException>(() => { _ = env.ExecuteAsync<ValueTask<int>>(_ => ValueTask.FromResult(1)); });
    }

    [Fact]
    public async Task A_delegate_typed_object_that_returns_a_task_fails_alone_and_its_writes_never_show()
    {
        using var env = StorageEnvironment.Open(Options());
        var refused = env.ExecuteAsync<object>(tx =>
        {
            tx.CreateTree("t").Put("refused"u8, [1]);
            return Task.CompletedTask;
        });
        var fine = env.ExecuteAsync(tx => tx.CreateTree("t").Put("fine"u8, [2]));

        await Assert.ThrowsAsync<NotSupportedException>(() => refused);
        await fine;
        using var read = env.BeginRead();
        Assert.False(read.OpenTree("t")!.TryGet("refused"u8, out _));
        Assert.True(read.OpenTree("t")!.TryGet("fine"u8, out _));
    }

    [Fact]
    public void The_overloads_an_async_lambda_binds_to_are_compile_time_errors_and_refuse_at_run_time()
    {
        var refused = typeof(StorageEnvironment).GetMethods(BindingFlags.Public | BindingFlags.Instance)
            .Where(m => m.Name == nameof(StorageEnvironment.ExecuteAsync) && m.GetCustomAttribute<ObsoleteAttribute>() != null)
            .ToList();

        Assert.Equal(4, refused.Count); // Func returning Task, Task<T>, ValueTask, ValueTask<T>
        using var env = StorageEnvironment.Open(Options());
        foreach (var method in refused)
        {
            Assert.True(method.GetCustomAttribute<ObsoleteAttribute>()!.IsError, $"{method} is an error, not a warning");
            var callable = method.IsGenericMethodDefinition ? method.MakeGenericMethod(typeof(int)) : method;
            var error = Assert.Throws<TargetInvocationException>(() => callable.Invoke(env, [null, CancellationToken.None]));
            Assert.IsType<ArgumentException>(error.InnerException); // a caller that ignores the attribute (reflection, F#) is refused
        }
    }

    /// <summary>
    /// An async lambda passed as an Action is async void: it returns at its first await. It is
    /// caught when it starts and fails alone; what it wrote before the await never commits, and
    /// what it does after the await throws on the closed transaction instead of writing.
    /// </summary>
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task An_async_void_delegate_fails_alone_and_nothing_it_wrote_commits(bool asyncCommit)
    {
        using var env = StorageEnvironment.Open(Options(asyncCommit));
        var afterAwait = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);
        Action<WriteTransaction> asyncVoid = async tx =>
        {
            tx.CreateTree("t").Put("before"u8, [1]);
            await Task.Yield();
            try
            {
                tx.CreateTree("t").Put("after"u8, [2]);
                afterAwait.SetResult(null);
            }
            catch (Exception e)
            {
                afterAwait.SetResult(e);
            }
        };

        var refused = env.ExecuteAsync(asyncVoid);
        var fine = env.ExecuteAsync(tx => tx.CreateTree("t").Put("fine"u8, [3]));

        var error = await Assert.ThrowsAsync<NotSupportedException>(() => refused);
        Assert.Contains("async void", error.Message, StringComparison.Ordinal);
        await fine;
        Assert.IsType<InvalidOperationException>(await afterAwait.Task.WaitAsync(TimeSpan.FromSeconds(30)));
        using var read = env.BeginRead();
        var tree = read.OpenTree("t")!;
        Assert.False(tree.TryGet("before"u8, out _));
        Assert.False(tree.TryGet("after"u8, out _));
        Assert.True(tree.TryGet("fine"u8, out _));
    }

    /// <summary>
    /// Regression: the continuation of an async void method started inside a merged operation runs
    /// on the thread pool, and could run while the operation was still inside its delegate, writing
    /// into the batch's open transaction from another thread. While a merged operation runs, its
    /// transaction now refuses every thread but the operation's. The delegate below waits (up to
    /// two seconds) for the continuation before it returns: before the fix the continuation's write
    /// succeeded in that window.
    /// </summary>
    [Fact]
    public async Task The_rest_of_an_async_void_method_cannot_use_the_operations_transaction_from_another_thread()
    {
        using var env = StorageEnvironment.Open(Options());
        var continued = new ManualResetEventSlim();
        Exception? afterAwait = new InvalidOperationException("the continuation never ran");

        async void WriteLater(WriteTransaction tx)
        {
            await Task.Yield();
            try
            {
                tx.CreateTree("t").Put("later"u8, [2]);
                afterAwait = null;
            }
            catch (Exception e)
            {
                afterAwait = e;
            }
            finally
            {
                continued.Set();
            }
        }

        var refused = env.ExecuteAsync(tx =>
        {
            tx.CreateTree("t").Put("before"u8, [1]);
            WriteLater(tx);
            continued.Wait(TimeSpan.FromSeconds(2)); // before the fix: the write above ran here, on the open transaction
        });

        await Assert.ThrowsAsync<NotSupportedException>(() => refused);
        Assert.True(continued.Wait(TimeSpan.FromSeconds(30)), "the continuation ran");
        Assert.IsType<InvalidOperationException>(afterAwait);
        using var read = env.BeginRead();
        Assert.Null(read.OpenTree("t"));
    }

    /// <summary>
    /// Blocking on a task inside a merged operation (sync over async) is the user's choice and
    /// must not deadlock the writer: a continuation it posts runs on the thread pool. The
    /// operation's own thread keeps using its transaction.
    /// </summary>
    [Fact]
    public async Task A_merged_operation_that_blocks_on_a_task_completes_and_commits()
    {
        using var env = StorageEnvironment.Open(Options());

        static async Task<byte> ValueAsync()
        {
            await Task.Yield(); // posts to the operation's context
            return 7;
        }

        await env.ExecuteAsync(tx => tx.CreateTree("t").Put("k"u8, [ValueAsync().GetAwaiter().GetResult()])).WaitAsync(TimeSpan.FromSeconds(30));

        using var read = env.BeginRead();
        Assert.True(read.OpenTree("t")!.TryGet("k"u8, out var value));
        Assert.Equal([7], value.ToArray());
    }

    /// <summary>
    /// Regression: a merged operation's transaction stayed writable after its batch committed, so
    /// a transaction (or tree, or iterator) kept past the delegate wrote into the page buffer the
    /// page table had published — readers saw a write the journal never got, and after a flush
    /// the data file held a page whose checksum failed. The operation's view of the transaction
    /// now closes when the delegate returns (T7, M6).
    /// </summary>
    [Fact]
    public async Task A_merged_operations_transaction_trees_and_iterators_throw_once_it_returned_and_the_store_stays_intact()
    {
        using var env = StorageEnvironment.Open(Options());
        WriteTransaction? kept = null;
        Tree? keptTree = null;
        TreeIterator? keptIterator = null;
        await env.ExecuteAsync(tx =>
        {
            kept = tx;
            keptTree = tx.CreateTree("t");
            keptTree.Put("k"u8, [1]);
            keptIterator = keptTree.Iterate();
        });

        Assert.Throws<InvalidOperationException>(() => keptTree!.Put("k"u8, [99]));
        Assert.Throws<InvalidOperationException>(() => keptTree!.Delete("k"u8));
        Assert.Throws<InvalidOperationException>(() => keptTree!.TryGet("k"u8, out _));
        Assert.Throws<InvalidOperationException>(() => kept!.CreateTree("u"));
        Assert.Throws<InvalidOperationException>(() => kept!.OpenTree("t"));
        Assert.Throws<InvalidOperationException>(() => kept!.DeleteTree("t"));
        Assert.Throws<InvalidOperationException>(() => keptIterator!.SeekFirst());
        var message = Assert.Throws<InvalidOperationException>(() => kept!.GetTreeNames()).Message;
        Assert.Contains("merged operation", message, StringComparison.Ordinal);

        using (var read = env.BeginRead())
        {
            Assert.Equal([1], read.OpenTree("t")!.Get("k"u8));
        }

        env.FlushToDataFile();
        env.CheckIntegrity();
        using var after = env.BeginRead();
        Assert.Equal([1], after.OpenTree("t")!.Get("k"u8));
    }
}
