using Voron.SqliteVfs.Interop;

namespace Voron.SqliteVfs.Locking;

internal sealed partial class DatabaseFile
{
    /// <summary>Whether reads take the newest submitted state without waiting (V4) rather than V3's rule.</summary>
    private bool ReadsAsWriter => _writer || (_ticket == TicketState.Used && _database.WriteLock.IsHeldBy(this));

    /// <summary>xLock: NONE → SHARED (V2), SHARED → RESERVED (V1, V5, V6), RESERVED → EXCLUSIVE (at once).</summary>
    public override int Lock(int level)
    {
        if (level <= _level)
        {
            return SqliteConstants.Ok;
        }

        if (_level == SqliteConstants.LockNone)
        {
            _snapshot = _database.TakeSnapshot();
            _level = SqliteConstants.LockShared;
            if (_ticket == TicketState.Issued && !_database.WriteLock.IsHeldBy(this))
            {
                _ticket = TicketState.None; // the ticket lapsed (V6)
            }
            else if (_ticket == TicketState.Issued)
            {
                // V6: the re-run. Nobody else can commit while this connection holds the
                // ticket, so the snapshot just taken is the newest and stays so.
                _ticket = TicketState.Used;
            }
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
        if (!_database.WriteLock.TryAcquire(this, _busyTimeout ?? _options.LockTimeout))
        {
            return SqliteConstants.Busy; // V1
        }

        switch (_database.CheckFreshness(_snapshot!, _cachedBlocks))
        {
            case Freshness.Fresh:
                break;
            case Freshness.Advance:
                // V5: nothing SQLite holds changed; move the snapshot to the newest state.
                _snapshot!.Dispose();
                _snapshot = _database.TakeSnapshot();
                _database.CountAdvance();
                break;
            default:
                if (ticket == TicketState.Issued)
                {
                    // V6: back without having dropped its snapshot (a deferred transaction that
                    // read before writing): it can only start over, as in WAL mode.
                    _database.WriteLock.Release(this);
                    return SqliteConstants.Busy;
                }

                _database.WriteLock.KeepAsTicket(this, TicketLifetime);
                _ticket = TicketState.Issued;
                _database.CountRerun();
                return SqliteConstants.Schema;
        }

        _writer = true;
        _writes = new WriteSet(_snapshot!.Length);
        _level = SqliteConstants.LockReserved;
        return SqliteConstants.Ok;
    }

    /// <summary>xUnlock: to SHARED ends a write transaction (rollback unless V7 committed it); to NONE drops the snapshot.</summary>
    public override int Unlock(int level)
    {
        if (level < SqliteConstants.LockReserved && _writer)
        {
            // V10: a rollback — the write set is discarded, the lock goes to the next in line.
            _writes = null;
            _writer = false;
            _database.WriteLock.Release(this);
        }

        if (level == SqliteConstants.LockNone)
        {
            _snapshot?.Dispose();
            _snapshot = null;
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
