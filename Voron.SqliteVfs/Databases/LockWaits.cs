namespace Voron.SqliteVfs.Databases;

/// <summary>
/// What V1 let connections of one database wait for its write lock, counted rather than timed
/// so tests can assert the bounds without a clock: each xLock(RESERVED) that found the lock
/// taken, the bound it waited up to, and each busy-handler sleep (xSleep) spent in line.
/// </summary>
internal sealed class LockWaits
{
    private long _refusals;
    private long _lockWaitMaxTicks;
    private long _lockWaitTotalTicks;
    private long _sleeps;
    private long _sleepTotalTicks;
    private long _sleepGrants;

    /// <summary>xLock(RESERVED) calls that answered SQLITE_BUSY because another connection held the lock.</summary>
    public long Refusals => Interlocked.Read(ref _refusals);

    /// <summary>The longest any single xLock waited in line (its bound, not a measured time).</summary>
    public TimeSpan LockWaitMax => TimeSpan.FromTicks(Interlocked.Read(ref _lockWaitMaxTicks));

    /// <summary>The sum of the bounds xLock calls waited up to.</summary>
    public TimeSpan LockWaitTotal => TimeSpan.FromTicks(Interlocked.Read(ref _lockWaitTotalTicks));

    /// <summary>Busy-handler sleeps (xSleep after a refusal) spent in line for the lock.</summary>
    public long Sleeps => Interlocked.Read(ref _sleeps);

    /// <summary>The sum of the durations SQLite's busy handler asked those sleeps for.</summary>
    public TimeSpan SleepTotal => TimeSpan.FromTicks(Interlocked.Read(ref _sleepTotalTicks));

    /// <summary>Sleeps that ended early because the lock was handed to the sleeper.</summary>
    public long SleepGrants => Interlocked.Read(ref _sleepGrants);

    public void RecordLockWait(TimeSpan bound, bool refused)
    {
        if (refused)
        {
            Interlocked.Increment(ref _refusals);
        }

        Interlocked.Add(ref _lockWaitTotalTicks, bound.Ticks);
        var max = Interlocked.Read(ref _lockWaitMaxTicks);
        while (bound.Ticks > max)
        {
            var seen = Interlocked.CompareExchange(ref _lockWaitMaxTicks, bound.Ticks, max);
            if (seen == max)
            {
                break;
            }

            max = seen;
        }
    }

    public void RecordSleep(TimeSpan requested, bool granted)
    {
        Interlocked.Increment(ref _sleeps);
        Interlocked.Add(ref _sleepTotalTicks, requested.Ticks);
        if (granted)
        {
            Interlocked.Increment(ref _sleepGrants);
        }
    }
}
