namespace Voron.Tests.Sql.VirtualTables;

/// <summary>xUpdate's three forms on a WITHOUT ROWID table, constraint errors, ON CONFLICT, UPSERT.</summary>
public sealed class VirtualTableUpdateTests
{
    private const string Name = "interop_update_kv";

    private static (KeyValueModule Module, SqliteConnection Connection) Open()
    {
        var module = new KeyValueModule(Name);
        var connection = Toy.Open(module);
        connection.Execute($"CREATE VIRTUAL TABLE t USING {Name}");
        module.Log.Clear();
        return (module, connection);
    }

    private static List<string> Updates(KeyValueModule module) =>
        [.. module.Log.Where(l => l.StartsWith("insert", StringComparison.Ordinal) || l.StartsWith("update", StringComparison.Ordinal) || l.StartsWith("delete", StringComparison.Ordinal))];

    [Fact]
    public void Update_receives_insert_update_and_delete_keyed_by_the_primary_key()
    {
        var (module, connection) = Open();
        using var _ = connection;

        connection.Execute("INSERT INTO t VALUES ('a', 1)");
        connection.Execute("UPDATE t SET k = 'b', v = 2 WHERE k = 'a'");
        connection.Execute("DELETE FROM t WHERE k = 'b'");

        Assert.Equal(
            [
                "insert argc=4 [0]=NULL [1]=NULL [2]='a' [3]=1 onconflict=4",
                "update argc=4 [0]='a' [1]='b' [2]='b' [3]=2 onconflict=4",
                "delete argc=1 [0]='b' onconflict=4",
            ],
            Updates(module));
        Assert.Empty(connection.Rows("SELECT * FROM t"));
    }

    [Fact]
    public void Insert_with_a_NULL_key_passes_NULL_as_both_the_old_and_the_new_key()
    {
        var (module, connection) = Open();
        using var _ = connection;

        connection.Execute("INSERT INTO t(v) VALUES (7)");

        Assert.Equal(["insert argc=4 [0]=NULL [1]=NULL [2]=NULL [3]=7 onconflict=4"], Updates(module));
        Assert.Equal("gen/1", connection.Scalar<string>("SELECT k FROM t"));
    }

    [Fact]
    public void An_update_that_does_not_set_a_column_sees_it_unchanged_when_xColumn_answers_NoChange()
    {
        var (module, connection) = Open();
        using var _ = connection;
        connection.Execute("INSERT INTO t VALUES ('a', 'big value')");
        module.Log.Clear();

        connection.Execute("UPDATE t SET k = 'b' WHERE k = 'a'");

        Assert.Contains("Column(v) nochange", module.Log);
        Assert.Equal(["update argc=4 [0]='a' [1]='b' [2]='b' [3]=NULL onconflict=4 v-unchanged"], Updates(module));
        Assert.Equal("big value", connection.Scalar<string>("SELECT v FROM t WHERE k = 'b'"));
    }

    [Fact]
    public void SQLITE_CONSTRAINT_from_Update_fails_the_statement_with_the_modules_message()
    {
        var (_, connection) = Open();
        using var __ = connection;
        connection.Execute("INSERT INTO t VALUES ('a', 1)");

        var error = Assert.Throws<SqliteException>(() => connection.Execute("INSERT INTO t VALUES ('a', 2)"));

        Assert.Equal(19, error.SqliteErrorCode);
        Assert.Contains("UNIQUE constraint failed: t.k", error.Message);
        Assert.Equal(1L, connection.Scalar<long>("SELECT v FROM t WHERE k = 'a'"));
    }

    [Fact]
    public void OnConflict_reports_the_statements_conflict_mode()
    {
        var (module, connection) = Open();
        using var _ = connection;
        connection.Execute("INSERT INTO t VALUES ('a', 1)");

        connection.Execute("INSERT OR REPLACE INTO t VALUES ('a', 2)");
        connection.Execute("INSERT OR IGNORE INTO t VALUES ('a', 3)");

        var updates = Updates(module);
        Assert.EndsWith("onconflict=5", updates[1]); // REPLACE
        Assert.EndsWith("onconflict=2", updates[2]); // IGNORE: the module's SQLITE_CONSTRAINT is ignored
        Assert.Equal(2L, connection.Scalar<long>("SELECT v FROM t WHERE k = 'a'"));
    }

    [Fact]
    public void Upsert_is_refused_by_SQLite_before_it_reaches_the_module()
    {
        var (module, connection) = Open();
        using var _ = connection;
        connection.Execute("INSERT INTO t VALUES ('a', 1)");
        module.Log.Clear();

        var error = Assert.Throws<SqliteException>(() => connection.Execute("INSERT INTO t VALUES ('a', 2) ON CONFLICT(k) DO UPDATE SET v = excluded.v"));

        Assert.Contains("UPSERT not implemented for virtual table", error.Message);
        Assert.Empty(Updates(module));
    }
}
