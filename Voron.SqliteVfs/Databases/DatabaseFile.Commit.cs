using System.Globalization;
using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop;

namespace Voron.SqliteVfs.Databases;

internal sealed unsafe partial class DatabaseFile
{
    /// <summary>V17: the address at which SQLite keeps the connection that owns this file (SQLITE_FCNTL_PDB), or null.</summary>
    private nint* _connection;

    /// <summary>xFileControl: the commit (V7), the pragma veto (V11), and the small opcodes SQLite expects answered.</summary>
    public override int FileControl(int op, void* argument)
    {
        switch (op)
        {
            case SqliteConstants.FcntlCommitPhaseTwo:
                try
                {
                    Commit();
                }
                catch (Exception e)
                {
                    // V17: SQLite has already marked this commit's pages clean in its cache, and
                    // only an I/O error makes it drop them: make its next cache check fail, or,
                    // when another statement keeps SQLite from checking again, answer an I/O error.
                    _pagerCacheDistrusted = true;
                    if (_connection != null && *_connection != 0 && SqliteNative.BusyStatements(*_connection) > 1)
                    {
                        throw new CommitFailedWhileReadingException(Name, e);
                    }

                    throw;
                }

                return SqliteConstants.Ok;
            case SqliteConstants.FcntlPdb:
                _connection = (nint*)argument; // V17: where SQLite keeps this file's connection (&BtShared.db)
                return SqliteConstants.NotFound;
            case SqliteConstants.FcntlPragma:
                return Pragma((byte**)argument);
            case SqliteConstants.FcntlSync:
            case SqliteConstants.FcntlSizeHint:
            case SqliteConstants.FcntlChunkSize:
                return SqliteConstants.Ok; // durability is the commit's (V7); the store sizes its own files
            case SqliteConstants.FcntlHasMoved:
                *(int*)argument = 0;
                return SqliteConstants.Ok;
            case SqliteConstants.FcntlLockState:
                *(int*)argument = _level;
                return SqliteConstants.Ok;
            case SqliteConstants.FcntlVfsName:
                *(byte**)argument = SqliteNative.MallocString(_vfsName);
                return SqliteConstants.Ok;
            default:
                return SqliteConstants.NotFound;
        }
    }

    /// <summary>
    /// V7: submits the write set and returns once it is durable; V10 for a transaction that
    /// wrote nothing. Throws why the commit failed (the callback maps it to an error code).
    /// Internal, not private: a test commits a file directly to see the state a failure leaves (DH2).
    /// </summary>
    internal void Commit()
    {
        if (!_writer)
        {
            return;
        }

        var started = System.Diagnostics.Stopwatch.GetTimestamp();
        var writes = _writes!;
        var snapshot = _snapshot!;
        var changes = _documents;
        _writes = null;
        _documents = null;
        _writer = false;
        DatabaseVersion? version = null;
        Voron.Transactions.TransactionMerger.CallerWrite? write = null;
        long released;
        try
        {
            // DH2: inside the try, so a prepare that throws still releases the write lock.
            var documents = changes is { IsEmpty: false } && Owner?.Documents is { } hook ? hook.Prepare(changes) : null;
            writes.DropUnchanged(snapshot);
            if (!writes.IsEmpty || documents != null)
            {
                version = _database.Submit(writes, snapshot, out write, documents); // V13: pages and documents, one version
                _snapshot = snapshot.With(version); // the connection reads its own commit from here on
            }
        }
        catch when (version == null)
        {
            writes.Discard(); // WB1: never submitted, so only this thread ever read the buffers
            throw;
        }
        finally
        {
            _database.WriteLock.Release(this); // V7: the next writer builds on this version at once
            released = System.Diagnostics.Stopwatch.GetTimestamp();
            write?.Run(); // merger MG4: the store was idle, so this thread writes the journal record itself
        }

        if (version != null)
        {
            try
            {
                version.WaitDurable();
            }
            finally
            {
                _database.CountCommit(released - started, System.Diagnostics.Stopwatch.GetTimestamp() - released);
            }
        }
        else
        {
            snapshot.Head?.WaitDurable(); // V10
        }
    }

    /// <summary>V11: refuses journal_mode=OFF and locking_mode=EXCLUSIVE; notes busy_timeout (V1). journal_mode=WAL is SQLite's to answer.</summary>
    private int Pragma(byte** arguments)
    {
        var name = Marshal.PtrToStringUTF8((nint)arguments[1])?.Trim().ToLowerInvariant();
        var value = arguments[2] == null ? null : Marshal.PtrToStringUTF8((nint)arguments[2])?.Trim().Trim('\'', '"').ToLowerInvariant();
        if (value == null)
        {
            return SqliteConstants.NotFound;
        }

        string? refusal = (name, value) switch
        {
            ("journal_mode", "off") => $"journal_mode=OFF is not available on Vfs={_vfsName}: without a rollback journal SQLite cannot undo a failed statement. Keep the default (DELETE) or use MEMORY; both keep SQLite's rollback journal in memory.",
            ("locking_mode", "exclusive") => $"locking_mode=EXCLUSIVE is not available on Vfs={_vfsName}: the store's write lock is taken and released per transaction. Keep locking_mode=NORMAL.",
            _ => null,
        };

        if (refusal != null)
        {
            arguments[0] = SqliteNative.MallocString(refusal);
            return SqliteConstants.Error;
        }

        if (name == "busy_timeout" && int.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out var milliseconds))
        {
            _busyTimeout = TimeSpan.FromMilliseconds(Math.Max(0, milliseconds));
        }

        return SqliteConstants.NotFound; // SQLite carries on with the pragma itself
    }
}
