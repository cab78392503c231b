using Voron.Transactions;

namespace Voron.Tests.Core.Merging;

/// <summary>CW1 (no lost wake-up under races) and CW2 (a commit without waiters allocates nothing) on CommitWaiters alone.</summary>
public sealed class CommitWaitersTests
{
    [Fact]
    public void A_signal_with_no_waiters_allocates_nothing()
    {
        var waiters = new CommitWaiters();
        Assert.Equal(0, Allocations.Fewest(() =>
        {
            for (var i = 0; i < 10_000; i++)
            {
                waiters.Signal();
            }
        }));
    }

    [Fact]
    public async Task Racing_waiters_and_commits_lose_no_wake_up()
    {
        const long commits = 20_000;
        var waiters = new CommitWaiters();
        long visible = 0;
        using var guard = new CancellationTokenSource(TimeSpan.FromMinutes(5)); // a lost wake-up hangs: the guard turns it into a failure
        var followers = Enumerable.Range(0, 8).Select(_ => Task.Run(async () =>
        {
            long seen = 0;
            var wakes = 0;
            while (seen < commits)
            {
                await waiters.WaitAsync(() => Volatile.Read(ref visible), seen, guard.Token);
                var now = Volatile.Read(ref visible);
                Assert.True(now > seen);
                seen = now;
                wakes++;
            }

            return wakes;
        })).ToArray();

        await Task.Run(() =>
        {
            for (var i = 0; i < commits; i++)
            {
                Interlocked.Increment(ref visible); // MakeVisible's order: publish, then signal
                waiters.Signal();
                if (i % 64 == 0)
                {
                    Thread.Yield();
                }
            }
        });

        var wakes = await Task.WhenAll(followers).WaitAsync(guard.Token);
        Assert.All(wakes, w => Assert.InRange(w, 1, (int)commits));
    }

    [Fact]
    public async Task Terminate_ends_present_and_later_waits_but_not_satisfied_ones()
    {
        var waiters = new CommitWaiters();
        long visible = 5;
        var waiting = waiters.WaitAsync(() => visible, 5, CancellationToken.None);
        Assert.False(waiting.IsCompleted);
        waiters.Terminate(() => new ObjectDisposedException("store"));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => waiting);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => waiters.WaitAsync(() => visible, 5, CancellationToken.None));
        await waiters.WaitAsync(() => visible, 4, CancellationToken.None); // already satisfied: completes
    }
}
