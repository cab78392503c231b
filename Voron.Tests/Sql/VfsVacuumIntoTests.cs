namespace Voron.Tests.Sql;

/// <summary>
/// VACUUM INTO on Vfs=voron (V12 in Voron.SqliteVfs/Databases/DatabaseState.cs).
/// Regression: every name went through the store's name rules, so an absolute path was refused
/// ("unable to open database", error 14). Fixed: an absolute path is an ordinary OS file served
/// by SQLite's default VFS; a plain name is a database inside the store.
/// </summary>
public sealed class VfsVacuumIntoTests : IDisposable
{
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "voron-vacuum-" + Guid.NewGuid().ToString("N"));

    public VfsVacuumIntoTests() => Directory.CreateDirectory(_directory);

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_directory, recursive: true);
    }

    private static SqliteConnection Populated(SqlStore store)
    {
        var connection = store.Open("db");
        connection.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
        connection.Execute("CREATE INDEX t_v ON t(v)");
        using var transaction = connection.BeginTransaction();
        for (var i = 0; i < 500; i++)
        {
            using var insert = connection.CreateCommand();
            insert.Transaction = transaction;
            insert.CommandText = "INSERT INTO t(v) VALUES ($v)";
            insert.Parameters.AddWithValue("$v", new string((char)('a' + (i % 26)), 1 + (i % 300)));
            insert.ExecuteNonQuery();
        }

        transaction.Commit();
        connection.Execute("DELETE FROM t WHERE id % 3 = 0"); // free pages for VACUUM to drop
        return connection;
    }

    private static string Rows(SqliteConnection connection) =>
        string.Join("\n", connection.Rows("SELECT id, v FROM t ORDER BY id").Select(r => $"{r[0]}|{r[1]}"));

    [Fact]
    public void Vacuum_into_an_absolute_path_writes_a_plain_sqlite_file_outside_the_store()
    {
        using var store = new SqlStore();
        using var source = Populated(store);
        var path = Path.Combine(_directory, "copy.db");

        source.Execute("VACUUM INTO $path", ("$path", path));

        using (var copy = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = path, Pooling = false }.ToString()))
        {
            copy.Open(); // stock SQLite, default VFS
            Assert.Equal("ok", copy.IntegrityCheck());
            Assert.Equal(Rows(source), Rows(copy));
        }

        using var read = store.Environment.BeginRead();
        Assert.Equal(["db"], read.GetPageFileNames()); // nothing of the copy went into the store
    }

    [Fact]
    public void Vacuum_into_a_plain_name_makes_a_database_inside_the_store()
    {
        using var store = new SqlStore();
        string expected;
        using (var source = Populated(store))
        {
            source.Execute("VACUUM INTO 'backup'");
            expected = Rows(source);
        }

        using (var copy = store.Open("backup"))
        {
            Assert.Equal("ok", copy.IntegrityCheck());
            Assert.Equal(expected, Rows(copy));
        }

        store.Reopen(); // durable: recovered from the store's journal
        using var recovered = store.Open("backup");
        Assert.Equal("ok", recovered.IntegrityCheck());
        Assert.Equal(expected, Rows(recovered));
    }

    [Fact]
    public void Vacuum_into_an_existing_file_fails_as_on_stock_sqlite()
    {
        using var store = new SqlStore();
        using var source = Populated(store);
        var path = Path.Combine(_directory, "exists.db");
        using (var other = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = path, Pooling = false }.ToString()))
        {
            other.Open();
            other.Execute("CREATE TABLE kept(x)");
        }

        var before = File.ReadAllBytes(path);
        var error = Assert.Throws<SqliteException>(() => source.Execute("VACUUM INTO $path", ("$path", path)));
        Assert.Contains("output file already exists", error.Message, StringComparison.Ordinal);
        Assert.Equal(before, File.ReadAllBytes(path));
    }

    [Fact]
    public void An_absolute_path_can_be_attached_as_a_plain_sqlite_file()
    {
        using var store = new SqlStore();
        using var source = Populated(store);
        var path = Path.Combine(_directory, "attached.db");

        source.Execute("ATTACH $path AS other", ("$path", path));
        source.Execute("CREATE TABLE other.t AS SELECT * FROM main.t");
        source.Execute("DETACH other");

        using var plain = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = path, Pooling = false }.ToString());
        plain.Open();
        Assert.Equal(Rows(source), Rows(plain));
    }
}
