using Voron.SqliteVfs.Databases;

namespace Voron.Tests.Sql;

/// <summary>
/// The write lock's line (V1 in Voron.SqliteVfs/Databases/DatabaseState.cs). Since issue 28 a
/// connection waits in slices (the busy handler's sleeps, or one LockTimeout per attempt) and
/// leaves the line between them; it comes back with the place it first took, so slices do not
/// send the longest waiter to the end.
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
}
