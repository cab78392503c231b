namespace Voron.Tests.Sql.VirtualTables;

/// <summary>
/// The order SQLite calls xBegin / xSync / xCommit / xRollback / xSavepoint / xRelease /
/// xRollbackTo in (plain in-memory connection, SQLite 3.50.4, a table with constraint support).
/// Observed sequences (the asserts below):
///   autocommit INSERT (one row):        Begin, Update, Sync, Commit
///   BEGIN; INSERT; INSERT; COMMIT:       Begin (at the first write), Update, Update, Sync, Commit
///   BEGIN; INSERT; ROLLBACK:             Begin, Update, Rollback
///   BEGIN; INSERT; SAVEPOINT s1; INSERT; ROLLBACK TO s1; RELEASE s1; COMMIT:
///                                        Begin, Update, Savepoint(0), Update, RollbackTo(0), Release(0), Sync, Commit
///   autocommit multi-row INSERT failing on row 3 (SQLITE_CONSTRAINT):
///                                        Begin, Update x3, Rollback (no savepoint: the statement is the transaction)
///   the same inside BEGIN (after an earlier INSERT), then COMMIT:
///                                        Begin, Update, Savepoint(0), Update x3, RollbackTo(0), Release(0), Sync, Commit
///   Single-row statements inside BEGIN get no savepoint. xSavepoint is called only for tables
///   already in the transaction (after their xBegin). With constraint support, OR IGNORE skips
///   the row (no error) and OR FAIL keeps the rows before it and commits them; without it,
///   both fail the statement and an autocommit transaction is rolled back.
/// </summary>
public sealed class VirtualTableTransactionTests
{
    private const string Name = "interop_tx_kv";

    private static (KeyValueModule Module, SqliteConnection Connection) Open()
    {
        var module = new KeyValueModule(Name);
        var connection = Toy.Open(module);
        connection.Execute($"CREATE VIRTUAL TABLE t USING {Name}");
        module.Log.Clear();
        return (module, connection);
    }

    private static string Calls(KeyValueModule module) =>
        string.Join(" ", module.Log.Select(l => l.StartsWith("insert", StringComparison.Ordinal) ? "insert:" + l.Split(' ')[4][4..] : l));

    [Fact]
    public void Autocommit_insert_calls_Begin_Update_Sync_Commit()
    {
        var (module, connection) = Open();
        using var _ = connection;

        connection.Execute("INSERT INTO t VALUES ('a', 1)");

        Assert.Equal("Begin insert:'a' Sync Commit", Calls(module));
    }

    [Fact]
    public void Begin_commit_calls_Begin_once_and_Sync_Commit_at_COMMIT()
    {
        var (module, connection) = Open();
        using var _ = connection;

        connection.Execute("BEGIN");
        connection.Execute("INSERT INTO t VALUES ('a', 1)");
        connection.Execute("INSERT INTO t VALUES ('b', 2)");
        connection.Execute("COMMIT");

        Assert.Equal("Begin insert:'a' insert:'b' Sync Commit", Calls(module));
    }

    [Fact]
    public void Rollback_calls_Rollback_and_the_rows_are_gone()
    {
        var (module, connection) = Open();
        using var _ = connection;

        connection.Execute("BEGIN");
        connection.Execute("INSERT INTO t VALUES ('a', 1)");
        connection.Execute("ROLLBACK");

        Assert.Equal("Begin insert:'a' Rollback", Calls(module));
        Assert.Empty(connection.Rows("SELECT * FROM t"));
    }

    [Fact]
    public void Savepoint_and_rollback_to_call_Savepoint_and_RollbackTo_with_its_level()
    {
        var (module, connection) = Open();
        using var _ = connection;

        connection.Execute("BEGIN");
        connection.Execute("INSERT INTO t VALUES ('a', 1)");
        connection.Execute("SAVEPOINT s1");
        connection.Execute("INSERT INTO t VALUES ('b', 2)");
        connection.Execute("ROLLBACK TO s1");
        connection.Execute("RELEASE s1");
        connection.Execute("COMMIT");

        Assert.Equal("Begin insert:'a' Savepoint(0) insert:'b' RollbackTo(0) Release(0) Sync Commit", Calls(module));
        Assert.Equal(["a"], connection.Rows("SELECT k FROM t").Select(r => (string)r[0]!));
    }

    [Fact]
    public void A_multi_row_insert_failing_on_its_third_row_in_autocommit_rolls_back_the_whole_transaction()
    {
        var (module, connection) = Open();
        using var _ = connection;
        module.RejectedKeys.Add("c");

        var error = Assert.Throws<SqliteException>(() => connection.Execute("INSERT INTO t VALUES ('a', 1), ('b', 2), ('c', 3)"));

        Assert.Equal(19, error.SqliteErrorCode);
        Assert.Equal("Begin insert:'a' insert:'b' insert:'c' Rollback", Calls(module)); // no savepoint: the statement is the transaction
        Assert.Empty(connection.Rows("SELECT * FROM t"));
    }

    [Fact]
    public void A_multi_row_insert_failing_on_its_third_row_inside_BEGIN_is_undone_with_RollbackTo()
    {
        var (module, connection) = Open();
        using var _ = connection;
        module.RejectedKeys.Add("c");
        connection.Execute("BEGIN");
        connection.Execute("INSERT INTO t VALUES ('q', 0)");

        var error = Assert.Throws<SqliteException>(() => connection.Execute("INSERT INTO t VALUES ('a', 1), ('b', 2), ('c', 3)"));
        connection.Execute("COMMIT");

        Assert.Equal(19, error.SqliteErrorCode);
        Assert.Equal("Begin insert:'q' Savepoint(0) insert:'a' insert:'b' insert:'c' RollbackTo(0) Release(0) Sync Commit", Calls(module));
        Assert.Equal(["q"], connection.Rows("SELECT k FROM t").Select(r => (string)r[0]!));
    }

    [Fact]
    public void With_constraint_support_OR_IGNORE_skips_the_failing_row_and_OR_FAIL_keeps_the_rows_before_it()
    {
        var (module, connection) = Open();
        using var _ = connection;
        module.RejectedKeys.Add("c");

        connection.Execute("INSERT OR IGNORE INTO t VALUES ('a', 1), ('c', 2), ('b', 3)");
        Assert.Equal("Begin insert:'a' insert:'c' insert:'b' Sync Commit", Calls(module));
        module.Log.Clear();
        Assert.Throws<SqliteException>(() => connection.Execute("INSERT OR FAIL INTO t VALUES ('d', 1), ('c', 2), ('e', 3)"));
        Assert.Equal("Begin insert:'d' insert:'c' Sync Commit", Calls(module));

        Assert.Equal(["a", "b", "d"], connection.Rows("SELECT k FROM t").Select(r => (string)r[0]!));
    }

    [Fact]
    public void Without_constraint_support_OR_IGNORE_fails_and_rolls_back_like_ABORT()
    {
        var module = new KeyValueModule(Name) { ConstraintSupport = false };
        using var connection = Toy.Open(module);
        connection.Execute($"CREATE VIRTUAL TABLE t USING {Name}");
        module.Log.Clear();
        module.RejectedKeys.Add("c");

        Assert.Throws<SqliteException>(() => connection.Execute("INSERT OR IGNORE INTO t VALUES ('a', 1), ('c', 2), ('b', 3)"));

        Assert.Equal("Begin insert:'a' insert:'c' Rollback", Calls(module));
        Assert.Empty(connection.Rows("SELECT * FROM t"));
    }
}
