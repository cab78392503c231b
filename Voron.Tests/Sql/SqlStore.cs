namespace Voron.Tests.Sql;

/// <summary>
/// A store registered as a SQLite VFS under a name of its own (registrations are process-wide
/// and tests run in parallel), over a file system that outlives the store so a test can reopen it.
/// </summary>
internal sealed class SqlStore : IDisposable
{
    private readonly Func<StorageEnvironmentOptions> _options;

    public SqlStore(IFileSystem? fileSystem = null, Action<StorageEnvironmentOptions>? configure = null)
    {
        FileSystem = fileSystem ?? StoreFactory.NewFileSystem();
        _options = () =>
        {
            var options = StorageEnvironmentOptions.ForFileSystem("/store", FileSystem);
            options.MaxDataFileSize = 4L << 30;
            options.JournalFileSize = 4 << 20;
            configure?.Invoke(options);
            return options;
        };
        Open();
    }

    public IFileSystem FileSystem { get; }

    public StorageEnvironment Environment { get; private set; } = null!;

    public VoronSqliteRegistration Registration { get; private set; } = null!;

    public string VfsName => Registration.VfsName;

    public string ConnectionString(string database, bool pooling = true) =>
        new SqliteConnectionStringBuilder { DataSource = database, Vfs = VfsName, Pooling = pooling }.ToString();

    /// <summary>A raw Microsoft.Data.Sqlite connection on the VFS (default journal mode, as a user's connection string gives).</summary>
    public SqliteConnection Open(string database, bool pooling = true)
    {
        var connection = new SqliteConnection(ConnectionString(database, pooling));
        connection.Open();
        return connection;
    }

    /// <summary>Closes the store as a crash would (no final flush) and opens it again: recovery from the journal.</summary>
    public void Reopen(bool crash = true)
    {
        Registration.Dispose();
        if (crash)
        {
            Environment.CloseWithoutFlush();
        }
        else
        {
            Environment.Dispose();
        }

        Open();
    }

    public void Dispose()
    {
        Registration.Dispose();
        Environment.Dispose();
    }

    private void Open()
    {
        Environment = StorageEnvironment.Open(_options());
        Registration = VoronSqlite.Register(Environment, "voron-test-" + Guid.NewGuid().ToString("N")[..12]);
    }
}
