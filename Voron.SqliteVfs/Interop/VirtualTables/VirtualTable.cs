namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>One virtual table on one connection (SQLite calls it from that connection's thread only).</summary>
internal abstract class VirtualTable
{
    /// <summary>The CREATE TABLE statement handed to sqlite3_declare_vtab.</summary>
    public abstract string Declaration { get; }

    /// <summary>True: the registry calls sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1) in xCreate/xConnect.</summary>
    public virtual bool ConstraintSupport => false;

    /// <summary>xBestIndex.</summary>
    public abstract void BestIndex(IndexInfo info);

    /// <summary>xOpen.</summary>
    public abstract VirtualTableCursor OpenCursor();

    /// <summary>
    /// xUpdate. <paramref name="arguments"/>: one value = DELETE of the row whose key is
    /// arguments[0]; more, with arguments[0] NULL = INSERT (arguments[2..] are the columns);
    /// else UPDATE of the row whose key is arguments[0] (arguments[1] the new key, arguments[2..]
    /// the columns). For a WITHOUT ROWID table the "key" is the PRIMARY KEY column's value.
    /// Observed with SQLite 3.50.4 on a <c>(k TEXT PRIMARY KEY, v) WITHOUT ROWID</c> table
    /// (VirtualTableUpdateTests): INSERT gives arguments[0] NULL and arguments[1] NULL ALWAYS —
    /// the new key is only in the PRIMARY KEY column's argument (arguments[2] there), which is
    /// NULL for <c>INSERT INTO t(v) VALUES (...)</c>: the module picks the key. UPDATE gives
    /// arguments[0] the old key and arguments[1] the new key (equal to the key column's
    /// argument). DELETE gives one argument, the key.
    /// </summary>
    public virtual void Update(ReadOnlySpan<SqliteValue> arguments) =>
        throw new VirtualTableException(SqliteConstants.ReadOnly, "This virtual table is read-only.");

    public virtual void Begin()
    {
    }

    /// <summary>xSync: the last point where a failure fails the COMMIT (SQLite ignores xCommit's result).</summary>
    public virtual void Sync()
    {
    }

    public virtual void Commit()
    {
    }

    public virtual void Rollback()
    {
    }

    public virtual void Savepoint(int level)
    {
    }

    public virtual void Release(int level)
    {
    }

    public virtual void RollbackTo(int level)
    {
    }

    /// <summary>xDisconnect (the connection closes or the schema is reloaded).</summary>
    public virtual void Disconnect()
    {
    }

    /// <summary>xDestroy (DROP TABLE).</summary>
    public virtual void Destroy() => Disconnect();
}

/// <summary>One cursor of a virtual table (xOpen .. xClose).</summary>
internal abstract class VirtualTableCursor
{
    /// <summary>xFilter: starts a scan. The values are valid only during the call (copy what you keep).</summary>
    public abstract void Filter(int indexNumber, string? indexString, ReadOnlySpan<SqliteValue> arguments);

    public abstract void Next();

    public abstract bool Eof { get; }

    /// <summary>xColumn: sets the current row's column <paramref name="column"/> (hidden columns included) on <paramref name="result"/>.</summary>
    public abstract void Column(ResultContext result, int column);

    /// <summary>xRowid (never called for a WITHOUT ROWID table).</summary>
    public virtual long RowId => 0;

    /// <summary>xClose.</summary>
    public virtual void Close()
    {
    }
}

/// <summary>A failure with a SQLite result code (SQLITE_CONSTRAINT, SQLITE_ERROR...) and the message SQLite shows.</summary>
internal sealed class VirtualTableException(int code, string message, Exception? inner = null) : Exception(message, inner)
{
    public int Code { get; } = code;
}
