using System.Diagnostics;
using System.Globalization;
using Voron.SqliteVfs.Interop;
using Voron.SqliteVfs.Vfs;

namespace Voron.SqliteVfs.Databases;

internal sealed partial class DatabaseFile
{
    /// <summary>
    /// V1: the file whose xLock(RESERVED) this thread last refused because another connection
    /// held the lock. SQLite's busy handler calls xSleep next on the same thread, and that sleep
    /// waits in line for the lock (<see cref="SleepInLine"/>); any other call clears it.
    /// </summary>
    [ThreadStatic]
    private static DatabaseFile? t_refused;

    /// <summary>V1: how long a refused connection keeps its place in line between attempts (the busy handler sleeps at most 100 ms, Microsoft.Data.Sqlite 150 ms).</summary>
    private static readonly TimeSpan PlaceKept = TimeSpan.FromSeconds(1);

    private static long s_arrivals;

    /// <summary>
    /// V1: the place in line this connection took when first refused (0: none), kept while it
    /// comes back within <see cref="PlaceKept"/>, so waiting in slices does not send it to the end.
    /// </summary>
    private long _arrival;
    private long _arrivedAt; // Stopwatch ticks: when the place was taken (WL2 counts starvation from it)
    private long _lastRefused; // Stopwatch ticks

    private long Arrival()
    {
        if (_arrival == 0 || Stopwatch.GetElapsedTime(_lastRefused) > PlaceKept)
        {
            _arrival = Interlocked.Increment(ref s_arrivals);
            _arrivedAt = Stopwatch.GetTimestamp();
        }

        return _arrival;
    }

    /// <summary>
    /// V1: how long one xLock(RESERVED) waits in line. Zero when the connection has a busy handler
    /// (PRAGMA busy_timeout &gt; 0): the handler's sleeps wait in line instead, so the total is
    /// the handler's own. Else one short slice (<see cref="VoronSqliteOptions.LockTimeout"/>)
    /// before Microsoft.Data.Sqlite's retry loop, which its command timeout bounds.
    /// </summary>
    private TimeSpan LockWait => _busyTimeout > TimeSpan.Zero ? TimeSpan.Zero : _options.LockTimeout;

    /// <summary>
    /// V1: xSleep from SQLite's busy handler. When this thread's last xLock was refused for a
    /// lock held elsewhere, the sleep waits in line for that lock instead, waking early only when
    /// the lock is handed to it (kept as a V6 ticket for the retry that follows at once).
    /// Returns false when the sleep is not one the VFS can spend in line (sleep normally).
    /// </summary>
    public static bool SleepInLine(TimeSpan duration)
    {
        var file = t_refused;
        t_refused = null;
        if (file == null || file._closed || file._level > SqliteConstants.LockShared)
        {
            return false;
        }

        var granted = file._database.WriteLock.TryAcquire(file, duration, file.Arrival(), file._arrivedAt);
        file._database.Waits.RecordSleep(duration, granted);
        if (granted)
        {
            file._database.WriteLock.KeepAsTicket(file, TicketLifetime);
            file._ticket = TicketState.Issued;
            file._arrival = 0;
        }
        else
        {
            file._lastRefused = Stopwatch.GetTimestamp();
        }

        return true;
    }

    /// <summary>xLock: NONE → SHARED (V2), SHARED → RESERVED (V1, V5, V6), RESERVED → EXCLUSIVE (at once).</summary>
    public override int Lock(int level)
    {
        t_refused = null;
        if (level <= _level)
        {
            return SqliteConstants.Ok;
        }

        if (_level == SqliteConstants.LockNone)
        {
            if (_ticket == TicketState.Issued && !_database.WriteLock.IsHeldBy(this))
            {
                _ticket = TicketState.None; // the ticket lapsed (V6)
            }

            if (_ticket == TicketState.Issued)
            {
                // V6: the re-run, which will write. Nobody else can commit while this connection
                // holds the ticket, so the newest submitted state stays the newest.
                _snapshot = _database.TakeNewest();
                _ticket = TicketState.Used;
            }
            else
            {
                _snapshot = _database.TakeDurable(); // V2: never waits, never sees a commit in flight
            }

            _level = SqliteConstants.LockShared;
        }

        if (level == SqliteConstants.LockShared)
        {
            return SqliteConstants.Ok;
        }

        if (_level == SqliteConstants.LockShared)
        {
            var result = AcquireWrite();
            if (result != SqliteConstants.Ok)
            {
                return result;
            }
        }

        _level = level; // PENDING and EXCLUSIVE: granted at once, readers read their snapshots
        return SqliteConstants.Ok;
    }

    private int AcquireWrite()
    {
        if (OnReadReplica)
        {
            // V18: refused before a write set exists, so SQLite writes nothing: no page, no
            // journal, no document change. SQLite reports SQLITE_READONLY; LastError says why.
            ErrorCodes.Note(ReplicaRefusal());
            return SqliteConstants.ReadOnly;
        }

        if (ReadOnly)
        {
            return SqliteConstants.IoErrLock;
        }

        if (_database.Environment.Failure is { } failure)
        {
            throw new StoreFailedException(_database.Environment.Path, failure); // fail-stop: refuse before building anything
        }

        var ticket = _ticket;
        _ticket = TicketState.None;
        var wait = LockWait;
        if (!_database.WriteLock.TryAcquire(this, wait, Arrival(), _arrivedAt))
        {
            // V1: held by another connection. The busy handler, if any, sleeps in line next.
            _database.Waits.RecordLockWait(wait, refused: true);
            _lastRefused = Stopwatch.GetTimestamp();
            t_refused = this;
            ErrorCodes.Note(new TimeoutException(
                $"Vfs={_vfsName}: database '{Name}' is locked: another connection holds its write lock (an open write transaction). " +
                $"This attempt waited {wait.TotalMilliseconds.ToString(CultureInfo.InvariantCulture)} ms in line; the total wait is bounded by PRAGMA busy_timeout " +
                $"({(_busyTimeout ?? TimeSpan.Zero).TotalMilliseconds.ToString(CultureInfo.InvariantCulture)} ms here) and Microsoft.Data.Sqlite's retries until the command timeout " +
                "(CommandTimeout / Default Timeout). Raise those to wait longer, or keep write transactions short."));
            return SqliteConstants.Busy;
        }

        _arrival = 0;
        var freshness = _database.CheckFreshness(_snapshot!, _cachedBlocks);
        Snapshot? newest = null;
        if (freshness == Freshness.Advance || (freshness == Freshness.Fresh && _snapshot!.Store.Id != _database.Environment.LastCommittedTransactionId))
        {
            // V5: newer pages, or the same pages and newer documents (sessions commit without
            // moving the database): the writer works on the newest state.
            newest = _database.TakeNewest();
            if (_readDocuments && Owner?.Documents is { } hook && hook.Changed(_snapshot!, newest))
            {
                // V16: the transaction read documents that changed since; moving it forward would
                // let it write over a version it never saw.
                newest.Dispose();
                newest = null;
                freshness = Freshness.Conflict;
            }
        }

        switch (freshness)
        {
            case Freshness.Fresh when newest != null:
                _snapshot!.Dispose();
                _snapshot = newest;
                break;
            case Freshness.Fresh:
                break;
            case Freshness.Advance:
                // V5: nothing SQLite holds changed; move the snapshot to the newest state.
                _snapshot!.Dispose();
                _snapshot = newest;
                _database.CountAdvance();
                break;
            default:
                if (ticket == TicketState.Issued)
                {
                    // V6: back without having dropped its snapshot (a deferred transaction that
                    // read before writing): it can only start over, as in WAL mode.
                    _database.WriteLock.Release(this);
                    ErrorCodes.Note(new InvalidOperationException(
                        $"Vfs={_vfsName}: database '{Name}': this transaction read a state that another connection has since changed, so it cannot write " +
                        "(SQLITE_BUSY_SNAPSHOT, as in WAL mode). Roll back and run it again; begin read-then-write transactions with BEGIN IMMEDIATE (BeginTransaction()'s default)."));
                    return SqliteConstants.BusySnapshot;
                }

                _database.WriteLock.KeepAsTicket(this, TicketLifetime);
                _ticket = TicketState.Issued;
                _database.CountRerun();
                return SqliteConstants.Schema;
        }

        _writer = true;
        _writes = new WriteSet(_snapshot!.Length, _database.Blocks);
        _level = SqliteConstants.LockReserved;
        return SqliteConstants.Ok;
    }

    /// <summary>xUnlock: to SHARED ends a write transaction (rollback unless V7 committed it); to NONE drops the snapshot.</summary>
    public override int Unlock(int level)
    {
        if (level < SqliteConstants.LockReserved && _writer)
        {
            // V10: a rollback — the write set is discarded, the lock goes to the next in line.
            _writes?.Discard(); // WB1
            _writes = null;
            _documents = null;
            _writer = false;
            _database.WriteLock.Release(this);
        }

        if (level == SqliteConstants.LockNone)
        {
            _snapshot?.Dispose();
            _snapshot = null;
            _readDocuments = false;
            if (_ticket == TicketState.Used)
            {
                // V6: the re-run ended without asking for RESERVED; the ticket lapses.
                _ticket = TicketState.None;
                _database.WriteLock.Release(this);
            }
        }

        _level = Math.Min(_level, level);
        return SqliteConstants.Ok;
    }
}
