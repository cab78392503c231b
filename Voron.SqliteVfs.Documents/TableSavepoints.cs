namespace Voron.SqliteVfs.Documents;

/// <summary>
/// SD7: the savepoints of one voron_docs table in one write transaction, as SQLite tells each
/// table of them (vtab.c, sqlite3VtabBegin and sqlite3VtabSavepoint): a table joins the
/// transaction with xBegin, then xSavepoint(N) when N+1 savepoints (the user's and the
/// statement's) are open; every table in the transaction is told of each savepoint that begins
/// after it joined, and of every ROLLBACK TO and RELEASE of a level at or below the newest it was
/// told of. A savepoint the table was not told of began before it joined, so for this table it is
/// where the table joined: the table changed nothing before. Rolling back undoes, in the shared
/// log, everything from the table's point on, made through any table (all of it came after the
/// savepoint); SQLite calls every table, and the earliest point among them is where the savepoint
/// began for the connection.
/// </summary>
internal sealed class TableSavepoints
{
    private readonly List<(int Level, int Position)> _marks = [];
    private int _joinedAt;

    /// <summary>xBegin: the table joins the transaction at <paramref name="position"/> of the shared log.</summary>
    public void Join(int position)
    {
        _marks.Clear();
        _joinedAt = position;
    }

    /// <summary>xSavepoint: savepoint <paramref name="level"/> is, for this table, <paramref name="position"/>.</summary>
    public void Begin(int level, int position)
    {
        _marks.RemoveAll(m => m.Level >= level);
        _marks.Add((level, position));
    }

    /// <summary>xRelease: savepoint <paramref name="level"/> and every later one end.</summary>
    public void Release(int level) => _marks.RemoveAll(m => m.Level >= level);

    /// <summary>xRollbackTo: the log position to undo back to; savepoint <paramref name="level"/> stays open, later ones end.</summary>
    public int RollbackTo(int level)
    {
        _marks.RemoveAll(m => m.Level > level);
        var index = _marks.FindLastIndex(m => m.Level <= level);
        return index < 0 ? _joinedAt : _marks[index].Position;
    }

    /// <summary>xCommit, xRollback: the transaction ended.</summary>
    public void Clear()
    {
        _marks.Clear();
        _joinedAt = 0;
    }
}
