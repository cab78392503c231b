using Voron.SqliteVfs.Interop;
using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.Tests.Sql.VirtualTables;

/// <summary>
/// An exception thrown by a module callback never crosses into native code: it fails the SQL
/// statement with its message (VT1, VT2) and is kept as VoronSqlite.LastError (VT3).
/// </summary>
public sealed class VirtualTableErrorTests
{
    private const string Series = "interop_error_series";
    private const string KeyValue = "interop_error_kv";

    [Theory]
    [InlineData("Connect")]
    [InlineData("BestIndex")]
    [InlineData("Open")]
    [InlineData("Filter")]
    [InlineData("Next")]
    [InlineData("Column")]
    public void A_cursor_or_planning_callbacks_exception_fails_the_SELECT_with_its_message(string callback)
    {
        var boom = new InvalidOperationException($"boom in {callback}");
        var module = new SeriesModule(Series) { Fault = c => c == callback ? boom : null };
        using var connection = Toy.Open(module);

        var error = Assert.Throws<SqliteException>(() => connection.Longs($"SELECT value FROM {Series}(1, 3)"));

        Assert.Equal(SqliteConstants.Error, error.SqliteErrorCode);
        Assert.Contains($"boom in {callback}", error.Message);
        Assert.Same(boom, VoronSqlite.LastError);
    }

    [Theory]
    [InlineData("Connect", "CREATE VIRTUAL TABLE u USING " + KeyValue)]
    [InlineData("BestIndex", "SELECT * FROM t")]
    [InlineData("Update", "INSERT INTO t VALUES ('a', 1)")]
    [InlineData("Begin", "INSERT INTO t VALUES ('a', 1)")]
    [InlineData("Sync", "INSERT INTO t VALUES ('a', 1)")]
    public void A_table_callbacks_exception_fails_the_statement_with_its_message(string callback, string sql)
    {
        var boom = new InvalidOperationException($"boom in {callback}");
        var module = new KeyValueModule(KeyValue);
        using var connection = Toy.Open(module);
        connection.Execute($"CREATE VIRTUAL TABLE t USING {KeyValue}");
        module.Fault = c => c == callback ? boom : null;

        var error = Assert.Throws<SqliteException>(() => connection.Execute(sql));

        Assert.Equal(SqliteConstants.Error, error.SqliteErrorCode);
        Assert.Contains($"boom in {callback}", error.Message);
        Assert.Same(boom, VoronSqlite.LastError);
    }

    [Fact]
    public void An_exception_from_Savepoint_fails_the_SAVEPOINT_statement()
    {
        var boom = new InvalidOperationException("boom in Savepoint");
        var module = new KeyValueModule(KeyValue);
        using var connection = Toy.Open(module);
        connection.Execute($"CREATE VIRTUAL TABLE t USING {KeyValue}");
        connection.Execute("BEGIN");
        connection.Execute("INSERT INTO t VALUES ('a', 1)");
        module.Fault = c => c == "Savepoint" ? boom : null;

        var error = Assert.Throws<SqliteException>(() => connection.Execute("SAVEPOINT s"));

        // SQLite does not copy zErrMsg after xSavepoint: the message is its generic one; LastError has ours.
        Assert.Equal(SqliteConstants.Error, error.SqliteErrorCode);
        Assert.Contains("SQL logic error", error.Message);
        Assert.Same(boom, VoronSqlite.LastError);
    }

    [Fact]
    public void A_VirtualTableException_gives_its_code_and_message_and_LastError_is_its_inner_exception()
    {
        var conflict = new InvalidOperationException("version 3 expected, 4 found");
        var module = new KeyValueModule(KeyValue);
        using var connection = Toy.Open(module);
        connection.Execute($"CREATE VIRTUAL TABLE t USING {KeyValue}");
        // Not SQLITE_BUSY: Microsoft.Data.Sqlite retries a statement that answers BUSY until the
        // command timeout (30 s by default) before it throws.
        module.Fault = c => c == "Sync" ? new VirtualTableException(SqliteConstants.Constraint, "commit conflict", conflict) : null;

        var error = Assert.Throws<SqliteException>(() => connection.Execute("INSERT INTO t VALUES ('a', 1)"));

        Assert.Equal(SqliteConstants.Constraint, error.SqliteErrorCode);
        Assert.Contains("commit conflict", error.Message);
        Assert.Same(conflict, VoronSqlite.LastError);
    }

    [Fact]
    public void A_VirtualTableException_without_inner_exception_is_LastError_itself()
    {
        var refused = new VirtualTableException(SqliteConstants.Constraint, "no such thing");
        var module = new KeyValueModule(KeyValue);
        using var connection = Toy.Open(module);
        connection.Execute($"CREATE VIRTUAL TABLE t USING {KeyValue}");
        module.Fault = c => c == "Update" ? refused : null;

        var error = Assert.Throws<SqliteException>(() => connection.Execute("INSERT INTO t VALUES ('a', 1)"));

        Assert.Equal(SqliteConstants.Constraint, error.SqliteErrorCode);
        Assert.Contains("no such thing", error.Message);
        Assert.Same(refused, VoronSqlite.LastError);
    }

    [Fact]
    public void SQLite_ignores_an_exception_from_Commit_but_LastError_keeps_it()
    {
        var boom = new InvalidOperationException("boom in Commit");
        var module = new KeyValueModule(KeyValue);
        using var connection = Toy.Open(module);
        connection.Execute($"CREATE VIRTUAL TABLE t USING {KeyValue}");
        module.Fault = c => c == "Commit" ? boom : null;

        connection.Execute("INSERT INTO t VALUES ('a', 1)"); // does not throw: anything that can fail must fail in Sync

        Assert.Same(boom, VoronSqlite.LastError);
    }

    [Fact]
    public void A_read_only_table_refuses_writes_with_SQLITE_READONLY()
    {
        using var connection = Toy.Open(new SeriesModule(Series));

        var error = Assert.Throws<SqliteException>(() => connection.Execute($"DELETE FROM {Series}"));

        Assert.Equal(SqliteConstants.ReadOnly, error.SqliteErrorCode);
        Assert.Contains("read-only", error.Message);
    }
}
