using Voron.PageFiles;

namespace Voron.Tests.Sql;

/// <summary>Errors reach the SQLite user as the SqliteException codes they know.</summary>
public sealed class VfsErrorTests
{
    [Theory]
    [InlineData("PRAGMA journal_mode=OFF", "journal_mode=OFF is not available")]
    [InlineData("PRAGMA locking_mode=EXCLUSIVE", "locking_mode=EXCLUSIVE is not available")]
    public void Pragmas_that_would_bypass_the_store_journal_are_refused_with_a_clear_error(string pragma, string message)
    {
        using var store = new SqlStore();
        using var connection = store.Open("db");
        var error = Assert.Throws<SqliteException>(() => connection.Execute(pragma));
        Assert.Equal(1, error.SqliteErrorCode);
        Assert.Contains(message, error.Message, StringComparison.Ordinal);
        Assert.Equal("delete", connection.Scalar<string>("PRAGMA journal_mode"));
    }

    [Theory]
    [InlineData("PRAGMA journal_mode=WAL", "delete")]
    [InlineData("PRAGMA journal_mode = 'wal';", "delete")]
    [InlineData("PRAGMA main.journal_mode=wal", "delete")]
    [InlineData("PRAGMA journal_mode=MEMORY; PRAGMA journal_mode=WAL", "memory")]
    public void Journal_mode_WAL_keeps_the_mode_and_reports_it_as_SQLite_does_where_WAL_cannot_be_used(string pragma, string kept)
    {
        // What broke: EF Core's EnsureCreated and Migrate run PRAGMA journal_mode = 'wal' on every
        // new database, and the VFS refused it with an error, so EF Core could not create one.
        // Stock SQLite answers an in-memory database this way: the mode it keeps, no error (V11).
        using var store = new SqlStore();
        using var connection = store.Open("db");
        Assert.Equal(kept, connection.Scalar<string>(pragma));
        Assert.Equal(kept, connection.Scalar<string>("PRAGMA journal_mode"));
        connection.Execute("CREATE TABLE t(x)");
        connection.Execute("INSERT INTO t VALUES (1)");
        Assert.Equal(1L, connection.Scalar<long>("SELECT count(*) FROM t"));
        using var read = store.Environment.BeginRead();
        Assert.Equal(["db"], read.GetPageFileNames()); // no -wal, no -shm
    }

    [Fact]
    public void Journal_mode_memory_and_truncate_are_allowed_and_no_journal_ever_reaches_the_store()
    {
        using var store = new SqlStore();
        using var connection = store.Open("db");
        Assert.Equal("memory", connection.Scalar<string>("PRAGMA journal_mode=MEMORY"));
        connection.Execute("CREATE TABLE t(x)");
        Assert.Equal("truncate", connection.Scalar<string>("PRAGMA journal_mode=TRUNCATE"));
        connection.Execute("INSERT INTO t VALUES (1)");
        using var read = store.Environment.BeginRead();
        Assert.Equal(["db"], read.GetPageFileNames());
    }

    [Theory]
    [InlineData("a/b")]
    [InlineData("../orders")]
    [InlineData("dir\\orders")] // "c:\\orders" is an absolute path on Windows: an OS file there (V12)
    [InlineData("orders-journal")]
    public void Database_names_with_paths_or_journal_suffixes_cannot_be_opened(string name)
    {
        using var store = new SqlStore();
        var error = Assert.Throws<SqliteException>(() => store.Open(name));
        Assert.Equal(14, error.SqliteErrorCode); // SQLITE_CANTOPEN
        Assert.IsType<ArgumentException>(VoronSqlite.LastError);
        Assert.Throws<ArgumentException>(() => store.Registration.ConnectionString(name));
    }

    [Fact]
    public void The_registration_refuses_an_empty_name_with_a_clear_message()
    {
        using var store = new SqlStore();
        var error = Assert.Throws<ArgumentException>(() => store.Registration.OpenConnection(""));
        Assert.Contains("empty", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Opening_a_missing_database_read_write_without_create_fails_like_sqlite()
    {
        using var store = new SqlStore();
        var builder = new SqliteConnectionStringBuilder { DataSource = "missing", Vfs = store.VfsName, Mode = SqliteOpenMode.ReadWrite };
        using var connection = new SqliteConnection(builder.ToString());
        Assert.Equal(14, Assert.Throws<SqliteException>(connection.Open).SqliteErrorCode);
    }

    [Fact]
    public void A_registered_name_cannot_be_registered_twice()
    {
        using var store = new SqlStore();
        Assert.Throws<InvalidOperationException>(() => VoronSqlite.Register(store.Environment, store.VfsName));
    }

    [Fact]
    public void A_damaged_page_in_the_store_is_sqlite_corrupt_with_the_stores_message()
    {
        using var directory = new TempDirectory();
        long page;
        using (var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory.Path)))
        using (var registration = VoronSqlite.Register(environment, "voron-corrupt-" + Guid.NewGuid().ToString("N")[..8]))
        {
            using (var connection = new SqliteConnection(registration.ConnectionString("db")))
            {
                connection.Open();
                connection.Execute("CREATE TABLE t(x TEXT)");
                connection.Execute("INSERT INTO t VALUES (zeroblob(3000))");
            }

            using var read = environment.BeginRead();
            page = BlockPage(read, "db", 1); // page 2: table t's root
        }

        using (var stream = new FileStream(Path.Combine(directory.Path, "voron.data"), FileMode.Open, FileAccess.ReadWrite))
        {
            stream.Position = page * 8192 + 5000; // inside the row's bytes: SQLite itself would not notice
            stream.WriteByte(0x5A);
        }

        using (var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory.Path)))
        using (var registration = VoronSqlite.Register(environment, "voron-corrupt-" + Guid.NewGuid().ToString("N")[..8]))
        using (var connection = new SqliteConnection(registration.ConnectionString("db")))
        {
            connection.Open();
            var error = Assert.Throws<SqliteException>(() => connection.Scalar<long>("SELECT count(*) FROM t"));
            Assert.Equal(11, error.SqliteErrorCode); // SQLITE_CORRUPT
            var cause = Assert.IsType<CorruptionException>(VoronSqlite.LastError);
            Assert.Contains("page file 'db'", cause.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void A_full_disk_is_sqlite_full_and_a_failed_store_is_sqlite_ioerr()
    {
        var disk = new CrashFileSystem(seed: 1, "/");
        using var store = new SqlStore(disk);
        using var connection = store.Open("db", pooling: false);
        connection.Execute("CREATE TABLE t(x)");

        disk.Faults = call => call.Kind == IoCallKind.Write && call.Path.Contains("/journal/", StringComparison.Ordinal) ? IoFault.DiskFull : IoFault.None;
        var full = Assert.Throws<SqliteException>(() => connection.Execute("INSERT INTO t VALUES (1)"));
        Assert.Equal(13, full.SqliteErrorCode); // SQLITE_FULL
        Assert.IsType<EnvironmentFailedException>(VoronSqlite.LastError);
        Assert.IsType<DiskFullException>(VoronSqlite.LastError!.InnerException);

        disk.Faults = null;
        if (store.Environment.Failure != null)
        {
            // Fail-stop: until reopened the store refuses writes; reads still work.
            var failed = Assert.Throws<SqliteException>(() => connection.Execute("INSERT INTO t VALUES (2)"));
            Assert.Equal(10, failed.SqliteErrorCode); // SQLITE_IOERR
        }

        Assert.Equal(0, connection.Scalar<long>("SELECT count(*) FROM t"));
        Assert.Equal("ok", connection.IntegrityCheck());
    }

    private static long BlockPage(ReadTransaction read, string name, long block)
    {
        var map = read.Low.OpenTree(PageFileFormat.TreeName(name))!;
        Span<byte> key = stackalloc byte[8];
        PageFileFormat.WriteBlockKey(key, block);
        Assert.True(map.TryGet(key, out var value));
        return PageFileFormat.ReadEntry(value, "", name, block).Page;
    }
}
