namespace Voron.Tests.Core.Merging;

/// <summary>StorageEnvironment.WaitForCommitAsync (CW1, CW2): woken by commits of either kind, ended by cancellation, disposal and failure.</summary>
public sealed class WaitForCommitTests
{
    private static readonly TimeSpan HangGuard = TimeSpan.FromMinutes(2);

    private static StorageEnvironment Open() => StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));

    [Fact]
    public async Task A_wait_for_a_transaction_already_committed_completes_at_once()
    {
        using var env = Open();
        await env.ExecuteAsync(tx => tx.CreateTree("t").Put("a"u8, [1]));
        var task = env.WaitForCommitAsync(env.LastCommittedTransactionId - 1);
        Assert.True(task.IsCompletedSuccessfully);
        await task;
    }

    [Fact]
    public async Task A_waiter_wakes_on_a_commit_of_an_explicit_transaction()
    {
        using var env = Open();
        var last = env.LastCommittedTransactionId;
        var waiting = env.WaitForCommitAsync(last);
        Assert.False(waiting.IsCompleted);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("a"u8, [1]);
            Assert.False(waiting.IsCompleted); // not before it commits
            tx.Commit();
        }

        await waiting.WaitAsync(HangGuard);
        Assert.True(env.LastCommittedTransactionId > last);
    }

    [Fact]
    public async Task Many_waiters_wake_on_a_commit_of_the_merger()
    {
        using var env = Open();
        var last = env.LastCommittedTransactionId;
        var waiters = Enumerable.Range(0, 8).Select(_ => env.WaitForCommitAsync(last)).ToArray();
        Assert.All(waiters, w => Assert.False(w.IsCompleted));
        await env.ExecuteAsync(tx => tx.CreateTree("t").Put("a"u8, [1]));
        await Task.WhenAll(waiters).WaitAsync(HangGuard);
    }

    [Fact]
    public async Task A_waiter_for_a_later_transaction_keeps_waiting_through_earlier_commits()
    {
        using var env = Open();
        var last = env.LastCommittedTransactionId;
        var waiting = env.WaitForCommitAsync(last + 1);
        await env.ExecuteAsync(tx => tx.CreateTree("t").Put("a"u8, [1]));
        Assert.Equal(last + 1, env.LastCommittedTransactionId);
        await Task.Yield();
        Assert.False(waiting.IsCompleted);
        await env.ExecuteAsync(tx => tx.CreateTree("t").Put("b"u8, [1]));
        await waiting.WaitAsync(HangGuard);
    }

    [Fact]
    public async Task Cancellation_ends_a_wait_with_OperationCanceledException()
    {
        using var env = Open();
        using var cancel = new CancellationTokenSource();
        var waiting = env.WaitForCommitAsync(env.LastCommittedTransactionId, cancel.Token);
        Assert.False(waiting.IsCompleted);
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.WaitAsync(HangGuard));
    }

    [Fact]
    public async Task Disposal_ends_a_wait_with_ObjectDisposedException_and_refuses_later_ones()
    {
        var env = Open();
        var last = env.LastCommittedTransactionId;
        var waiting = env.WaitForCommitAsync(last);
        Assert.False(waiting.IsCompleted);
        env.Dispose();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => waiting.WaitAsync(HangGuard));
        Assert.Throws<ObjectDisposedException>(() => { _ = env.WaitForCommitAsync(last); }); // synchronously
    }

    [Fact]
    public async Task A_failed_store_ends_a_wait_with_EnvironmentFailedException()
    {
        using var env = Open();
        var waiting = env.WaitForCommitAsync(env.LastCommittedTransactionId);
        Assert.False(waiting.IsCompleted);
        env.Fail(new IOException("injected"));
        var error = await Assert.ThrowsAsync<EnvironmentFailedException>(() => waiting.WaitAsync(HangGuard));
        Assert.IsType<IOException>(error.InnerException);
    }
}
