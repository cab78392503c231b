using Voron.Tests.Sql.Documents;

namespace Voron.Tests.Sql;

/// <summary>
/// Copying a database out of the store with SQLite's own tools, as docs/sql.md ("Backups") says:
/// SqliteConnection.BackupDatabase into a new file or a rollback-journal file works; into an
/// existing WAL-mode file of another page size SQLite refuses it (the page sizes differ; the
/// store's databases have 8 KiB pages); VACUUM INTO copies a voron_docs table's definition only.
/// </summary>
public sealed class SqlCopyOutTests
{
    [Fact]
    public void BackupDatabase_into_a_new_file_gives_a_plain_database_stock_SQLite_reads()
    {
        using var directory = new TempDirectory();
        using var store = new SqlStore();
        using var source = store.Open("db");
        source.Execute("CREATE TABLE t(v)");
        source.Execute("INSERT INTO t VALUES (1), (2)");

        using var target = new SqliteConnection($"Data Source={directory.Combine("copy.db")}");
        target.Open();
        source.BackupDatabase(target);
        Assert.Equal(2L, target.Scalar<long>("SELECT count(*) FROM t"));
        Assert.Equal(8192L, target.Scalar<long>("PRAGMA page_size"));
    }

    [Fact]
    public void BackupDatabase_into_an_existing_WAL_file_with_4_KiB_pages_is_refused_and_works_after_journal_mode_DELETE()
    {
        using var directory = new TempDirectory();
        using var store = new SqlStore();
        using var source = store.Open("db");
        source.Execute("CREATE TABLE t(v)");
        source.Execute("INSERT INTO t VALUES (1)");

        using var target = new SqliteConnection($"Data Source={directory.Combine("wal.db")}");
        target.Open();
        target.Execute("PRAGMA page_size = 4096");
        target.Execute("PRAGMA journal_mode = WAL");
        target.Execute("CREATE TABLE old(x)");
        var error = Assert.Throws<SqliteException>(() => source.BackupDatabase(target));
        Assert.Equal(8, error.SqliteErrorCode); // SQLITE_READONLY: "attempt to write a readonly database"

        target.Execute("PRAGMA journal_mode = DELETE"); // what docs/sql.md says to do
        source.BackupDatabase(target);
        Assert.Equal(1L, target.Scalar<long>("SELECT count(*) FROM t"));
    }

    [Fact]
    public void VACUUM_INTO_copies_a_voron_docs_table_as_its_definition_only()
    {
        using var directory = new TempDirectory();
        using var store = new DocsStore();
        using var connection = store.Open();
        connection.Execute("CREATE VIRTUAL TABLE orders USING voron_docs(Order)");
        connection.Execute("INSERT INTO orders(id, body) VALUES ('orders/1', '{}')");
        var copy = directory.Combine("copy.db");
        connection.Execute($"VACUUM INTO '{copy}'");

        using var stock = new SqliteConnection($"Data Source={copy}");
        stock.Open();
        Assert.Equal(1L, stock.Scalar<long>("SELECT count(*) FROM sqlite_schema WHERE name = 'orders'"));
        // This process registers the module on every connection, so it answers itself; the stock
        // sqlite3 shell answers "no such module: voron_docs". Either way the documents stay behind.
        var error = Assert.Throws<SqliteException>(() => stock.Execute("SELECT * FROM orders"));
        Assert.Contains("voron_docs", error.Message, StringComparison.Ordinal);
    }
}
