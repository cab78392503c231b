using Voron.SqliteVfs.Databases;

namespace Voron.Tests.Sql;

/// <summary>
/// The write lock's line (V1 in Voron.SqliteVfs/Databases/DatabaseState.cs). A connection waits
/// in slices (the busy handler's sleeps, or one LockTimeout per attempt) and leaves the line
/// between them; it comes back with the place it first took, so slices do not send the longest
/// waiter to the end.
/// </summary>
public sealed class WriteLockTests
{
    private static Task<bool> AcquireAsync(WriteLock writeLock, object owner, long arrival) =>
        Task.Factory.StartNew(() => writeLock.TryAcquire(owner, TimeSpan.FromMinutes(1), arrival), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);

    private static async Task WaitersAsync(WriteLock writeLock, int count)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromMinutes(1);
        while (writeLock.Waiting < count && DateTime.UtcNow < deadline)
        {
            await Task.Delay(2);
        }

        Assert.Equal(count, writeLock.Waiting);
    }

    [Fact]
    public async Task A_waiter_that_comes_back_is_served_before_those_who_arrived_after_it()
    {
        var writeLock = new WriteLock();
        object holder = new(), later = new(), earlier = new();
        Assert.True(writeLock.TryAcquire(holder, TimeSpan.Zero));

        var laterWaits = AcquireAsync(writeLock, later, arrival: 5);
        await WaitersAsync(writeLock, 1);
        var earlierWaits = AcquireAsync(writeLock, earlier, arrival: 3); // back from a sleep: its first place was 3
        await WaitersAsync(writeLock, 2);

        writeLock.Release(holder);
        Assert.True(await earlierWaits.WaitAsync(TimeSpan.FromMinutes(1)));
        Assert.True(writeLock.IsHeldBy(earlier));
        Assert.False(laterWaits.IsCompleted);

        writeLock.Release(earlier);
        Assert.True(await laterWaits.WaitAsync(TimeSpan.FromMinutes(1)));
        Assert.True(writeLock.IsHeldBy(later));
    }

    [Fact]
    public void An_attempt_that_may_not_wait_is_refused_at_once_and_leaves_no_place_behind()
    {
        var writeLock = new WriteLock();
        object holder = new(), other = new();
        Assert.True(writeLock.TryAcquire(holder, TimeSpan.Zero));

        Assert.False(writeLock.TryAcquire(other, TimeSpan.Zero));
        Assert.Equal(0, writeLock.Waiting);
        writeLock.Release(holder);
        Assert.False(writeLock.IsHeldBy(other));
        Assert.True(writeLock.TryAcquire(other, TimeSpan.Zero));
    }

    [Fact]
    public async Task A_released_lock_goes_to_a_running_thread_that_asks_before_the_woken_waiter_runs_WL1()
    {
        // What broke (a lock convoy): a release handed the lock to the first sleeping waiter, and
        // nobody could write until the scheduler ran that thread. Now a release frees the lock and
        // wakes the waiter; a thread that asks first takes it, and the waiter waits again at the head.
        // WL2's bound is far beyond any scheduler delay here, so the waiter never counts as starving.
        var writeLock = new WriteLock(starving: TimeSpan.FromHours(1));
        object holder = new(), sleeper = new(), runner = new();
        Assert.True(writeLock.TryAcquire(holder, TimeSpan.Zero));
        var sleeping = AcquireAsync(writeLock, sleeper, arrival: 1);
        await WaitersAsync(writeLock, 1);

        lock (Gate(writeLock))
        {
            // The sleeper cannot take the lock while the test holds the lock's monitor, so the
            // running thread asks first, whatever the scheduler does.
            writeLock.Release(holder);
            Assert.True(writeLock.TryAcquire(runner, TimeSpan.Zero));
        }

        Assert.True(writeLock.IsHeldBy(runner));
        Assert.False(sleeping.IsCompleted);
        writeLock.Release(runner);
        Assert.True(await sleeping.WaitAsync(TimeSpan.FromMinutes(1)));
        Assert.True(writeLock.IsHeldBy(sleeper));
        Assert.Equal(0, writeLock.Waiting);
    }

    [Fact]
    public async Task A_waiter_passed_over_for_long_gets_the_lock_handed_to_it_and_nobody_takes_it_first_WL2()
    {
        var bound = TimeSpan.FromMilliseconds(1);
        var writeLock = new WriteLock(bound);
        object holder = new(), starving = new(), runner = new();
        Assert.True(writeLock.TryAcquire(holder, TimeSpan.Zero));
        var waiting = AcquireAsync(writeLock, starving, arrival: 1);
        await WaitersAsync(writeLock, 1);
        // The waiter is in line from here on, so once the Stopwatch (the clock WL2 reads) says three
        // bounds have passed, it has waited longer than WL2's bound. Task.Delay alone does not say
        // so: its timers run on a coarse clock and can fire early by a tick of it.
        var inLine = System.Diagnostics.Stopwatch.GetTimestamp();
        while (System.Diagnostics.Stopwatch.GetElapsedTime(inLine) < bound * 3)
        {
            await Task.Delay(1);
        }

        lock (Gate(writeLock))
        {
            writeLock.Release(holder);
            Assert.False(writeLock.TryAcquire(runner, TimeSpan.Zero)); // handed over: not free to take
            Assert.True(writeLock.IsHeldBy(starving));
        }

        Assert.True(await waiting.WaitAsync(TimeSpan.FromMinutes(1)));
        var statistics = writeLock.Statistics;
        Assert.Equal(1, statistics.StarvedHandOffs);
        Assert.Equal(2, statistics.Acquisitions);
        Assert.Equal(1, statistics.HandOffs);
        Assert.Equal(1, statistics.Refusals);
    }

    [Fact]
    public async Task Random_threads_never_hold_the_lock_together_and_each_one_that_waits_without_end_gets_it()
    {
        var seed = Random.Shared.Next();
        if (int.TryParse(System.Environment.GetEnvironmentVariable("VORON_SEED"), out var fixedSeed))
        {
            seed = fixedSeed;
        }

        var writeLock = new WriteLock();
        var inside = 0;
        var overlaps = 0;
        var acquired = 0;
        var refused = 0;
        var threads = Enumerable.Range(0, 8).Select(t => Task.Factory.StartNew(() =>
        {
            var random = new Random(seed + t);
            var owner = new object();
            for (var i = 0; i < 200; i++)
            {
                var timeout = random.Next(4) switch { 0 => TimeSpan.Zero, 1 => TimeSpan.FromMilliseconds(random.Next(1, 5)), _ => Timeout.InfiniteTimeSpan };
                if (!writeLock.TryAcquire(owner, timeout, arrival: random.Next(3) == 0 ? i : long.MaxValue))
                {
                    Assert.NotEqual(Timeout.InfiniteTimeSpan, timeout);
                    Interlocked.Increment(ref refused);
                    continue;
                }

                if (Interlocked.Increment(ref inside) != 1)
                {
                    Interlocked.Increment(ref overlaps);
                }

                Interlocked.Increment(ref acquired);
                if (random.Next(4) == 0)
                {
                    Thread.Sleep(random.Next(0, 2));
                }
                else
                {
                    Thread.SpinWait(random.Next(10, 2_000));
                }

                Interlocked.Decrement(ref inside);
                writeLock.Release(owner);
            }
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)).ToArray();
        await Task.WhenAll(threads).WaitAsync(TimeSpan.FromMinutes(5));

        Assert.True(overlaps == 0, $"seed {seed}: {overlaps} times two threads held the lock together");
        Assert.Equal(0, writeLock.Waiting);
        Assert.False(writeLock.IsHeldByAnother(new object()));
        var statistics = writeLock.Statistics;
        Assert.Equal(acquired, statistics.Acquisitions);
        Assert.Equal(refused, statistics.Refusals);
        Assert.True(statistics.WaitTicks >= 0 && statistics.HeldTicks >= 0 && statistics.HandOffTicks >= 0,
            $"seed {seed}: a negative time in {statistics} (a hand-off timed before the release it follows)");
        Assert.True(statistics.HandOffs <= statistics.Acquisitions);
    }

    /// <summary>The lock's monitor: holding it keeps every waiter from running its next step.</summary>
    private static object Gate(WriteLock writeLock) =>
        typeof(WriteLock).GetField("_sync", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance)!.GetValue(writeLock)!;
}
