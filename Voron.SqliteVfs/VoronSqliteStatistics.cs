namespace Voron.SqliteVfs;

/// <summary>
/// What SQL on one database of a store did since the store was opened
/// (<see cref="VoronSqliteRegistration.GetStatistics"/>): its write transactions, its write
/// lock's waits and hand-offs, and the waits and re-runs its snapshots caused. Counters only
/// grow; take two and subtract (<see cref="Since"/>) to see one run.
/// </summary>
/// <example>
/// <code>
/// var before = registration.GetStatistics("orders");
/// // ... run the workload ...
/// var run = registration.GetStatistics("orders").Since(before);
/// Console.WriteLine($"{run.WriteTransactions} commits, lock held {run.WriteLockHeldTime / Math.Max(1, run.WriteLockAcquisitions)} each");
/// </code>
/// </example>
public sealed class VoronSqliteStatistics
{
    /// <summary>The database's name.</summary>
    public required string Database { get; init; }

    /// <summary>Write transactions submitted to the store (each COMMIT that changed pages or documents).</summary>
    public long WriteTransactions { get; init; }

    /// <summary>Time the committing connections spent under the write lock between COMMIT's start and the release: comparing the written pages with the snapshot's and submitting them.</summary>
    public TimeSpan CommitCaptureTime { get; init; }

    /// <summary>Time COMMITs waited, after the release, for their store transaction to be durable (journal write and flush, shared with other commits).</summary>
    public TimeSpan CommitDurableWaitTime { get; init; }

    /// <summary>Times a connection got the write lock (SQLite's RESERVED).</summary>
    public long WriteLockAcquisitions { get; init; }

    /// <summary>Attempts at the write lock that ended without it (each answered SQLITE_BUSY, or retried by SQLite's busy handler).</summary>
    public long WriteLockRefusals { get; init; }

    /// <summary>Time connections spent waiting in line for the write lock, granted or not.</summary>
    public TimeSpan WriteLockWaitTime { get; init; }

    /// <summary>Time the write lock was held, from the moment the holder's thread had it to its release.</summary>
    public TimeSpan WriteLockHeldTime { get; init; }

    /// <summary>Releases that left connections waiting in line.</summary>
    public long WriteLockHandOffs { get; init; }

    /// <summary>Time from those releases until the next holder's thread ran with the lock: how long the lock sat idle between writers.</summary>
    public TimeSpan WriteLockHandOffTime { get; init; }

    /// <summary>Hand-offs straight to the first in line because it had waited longer than the lock lets a running thread go first (100 ms).</summary>
    public long WriteLockStarvedHandOffs { get; init; }

    /// <summary>Writers whose snapshot was moved to the newest state when they took the write lock (nothing they read had changed).</summary>
    public long SnapshotAdvances { get; init; }

    /// <summary>Statements SQLite ran again with the lock kept, because their snapshot went stale before their first write.</summary>
    public long StatementReruns { get; init; }

    /// <summary>Reads that waited for another connection's commit to be durable: a writer reading <c>version</c> or <c>last_modified</c> of a document that commit wrote. Transactions that only read never wait.</summary>
    public long ReadsWaitedForFlush { get; init; }

    /// <summary>The time those reads waited.</summary>
    public TimeSpan ReadFlushWaitTime { get; init; }

    /// <summary>What happened between <paramref name="earlier"/> (of the same database) and this.</summary>
    /// <exception cref="ArgumentException"><paramref name="earlier"/> is of another database.</exception>
    public VoronSqliteStatistics Since(VoronSqliteStatistics earlier)
    {
        ArgumentNullException.ThrowIfNull(earlier);
        if (!string.Equals(earlier.Database, Database, StringComparison.Ordinal))
        {
            throw new ArgumentException($"The earlier statistics are of database '{earlier.Database}', these of '{Database}': subtract statistics of the same database.", nameof(earlier));
        }

        return new VoronSqliteStatistics
        {
            Database = Database,
            WriteTransactions = WriteTransactions - earlier.WriteTransactions,
            CommitCaptureTime = CommitCaptureTime - earlier.CommitCaptureTime,
            CommitDurableWaitTime = CommitDurableWaitTime - earlier.CommitDurableWaitTime,
            WriteLockAcquisitions = WriteLockAcquisitions - earlier.WriteLockAcquisitions,
            WriteLockRefusals = WriteLockRefusals - earlier.WriteLockRefusals,
            WriteLockWaitTime = WriteLockWaitTime - earlier.WriteLockWaitTime,
            WriteLockHeldTime = WriteLockHeldTime - earlier.WriteLockHeldTime,
            WriteLockHandOffs = WriteLockHandOffs - earlier.WriteLockHandOffs,
            WriteLockHandOffTime = WriteLockHandOffTime - earlier.WriteLockHandOffTime,
            WriteLockStarvedHandOffs = WriteLockStarvedHandOffs - earlier.WriteLockStarvedHandOffs,
            SnapshotAdvances = SnapshotAdvances - earlier.SnapshotAdvances,
            StatementReruns = StatementReruns - earlier.StatementReruns,
            ReadsWaitedForFlush = ReadsWaitedForFlush - earlier.ReadsWaitedForFlush,
            ReadFlushWaitTime = ReadFlushWaitTime - earlier.ReadFlushWaitTime,
        };
    }
}
