namespace Voron.LoadTests.Stores.Sqlite;

/// <summary>How a stock SQLite database journals its commits; both are durable with synchronous=FULL.</summary>
internal enum SqliteJournal
{
    /// <summary>Write-ahead log: a commit appends to the WAL and syncs it; checkpoints copy pages back.</summary>
    Wal,

    /// <summary>The default rollback journal (journal_mode=DELETE): a commit syncs the journal, then the database file.</summary>
    Rollback,
}

/// <summary>
/// The stock SQLite adapter: the one place a suite opens a SQLite database, through
/// Microsoft.Data.Sqlite, durably and as a knowledgeable user sets it up. Every connection gets
/// <c>synchronous=FULL</c> (a commit returns after its sync); the database gets its journal mode
/// once (WAL unless the suite compares the rollback journal); where the suite asks, a large page
/// cache (<see cref="CacheSizePragma"/>: room for a full run's table, so reads are not held back
/// when the memory-mapped peers have all of the OS page cache), <c>mmap_size</c>
/// (<see cref="MmapSize"/>) and <c>busy_timeout</c> (<see cref="BusyTimeoutMs"/>: concurrent
/// writers wait for the write lock inside SQLite). On a simulated slower disk every connection
/// uses <see cref="SimulatedDisk.SqliteVfs"/>, whose xSync waits the delay where SQLite syncs.
/// Workloads keep their schema and statements; this type keeps the durable settings.
/// </summary>
internal sealed class SqliteStore : IDisposable
{
    /// <summary><c>PRAGMA cache_size</c>: negative means KiB, so 256 MiB.</summary>
    internal const int CacheSizePragma = -262_144;

    /// <summary><c>PRAGMA mmap_size</c> of the mmap variant: SQLite's default upper limit (SQLITE_MAX_MMAP_SIZE, 0x7fff0000), about 2 GiB.</summary>
    internal const long MmapSize = 0x7fff0000;

    /// <summary>A writer waits this long for the lock before SQLITE_BUSY (Microsoft.Data.Sqlite's own retry sleeps 150 ms).</summary>
    internal const int BusyTimeoutMs = 60_000;

    private readonly string _connectionString;
    private readonly string _pragmas;
    private readonly SqliteJournal _journal;
    private readonly bool _pooling;
    private readonly Lock _gate = new();
    private bool _journalSet;

    /// <param name="path">The database file.</param>
    /// <param name="disk">The disk: with a simulated delay, connections use its delaying VFS.</param>
    /// <param name="journal">WAL (the default) or the rollback journal.</param>
    /// <param name="pooling">Pooled connections (closed by <see cref="Dispose"/>), or a file handle per connection.</param>
    /// <param name="pageCache">Whether every connection gets <see cref="CacheSizePragma"/>.</param>
    /// <param name="busyTimeout">Whether every connection gets <see cref="BusyTimeoutMs"/>.</param>
    /// <param name="mmap">Whether every connection gets <see cref="MmapSize"/>.</param>
    public SqliteStore(string path, SimulatedDisk? disk = null, SqliteJournal journal = SqliteJournal.Wal, bool pooling = false,
        bool pageCache = true, bool busyTimeout = false, bool mmap = false)
    {
        Path = path;
        _journal = journal;
        _pooling = pooling;
        _connectionString = new SqliteConnectionStringBuilder { DataSource = path, Pooling = pooling, Vfs = (disk ?? SimulatedDisk.None).SqliteVfs }.ToString();
        _pragmas = "PRAGMA synchronous=FULL;" +
                   (busyTimeout ? $" PRAGMA busy_timeout={BusyTimeoutMs};" : "") +
                   (pageCache ? $" PRAGMA cache_size={CacheSizePragma};" : "") +
                   (mmap ? $" PRAGMA mmap_size={MmapSize};" : "");
        Durability = (journal == SqliteJournal.Wal ? "WAL, synchronous=FULL: a commit returns after the WAL fsync" : "rollback journal, synchronous=FULL: a commit returns after the journal's and the database's fsyncs") +
                     (busyTimeout ? $"; busy_timeout={BusyTimeoutMs} for concurrent writers" : "");
    }

    public string Path { get; }

    /// <summary>What an acknowledged commit survives, in the report's words.</summary>
    public string Durability { get; }

    /// <summary>A new open connection with the durable settings (the first one also sets the journal mode); disposed if a setting fails.</summary>
    public SqliteConnection Connect()
    {
        var connection = new SqliteConnection(_connectionString);
        try
        {
            connection.Open();
            lock (_gate)
            {
                if (!_journalSet)
                {
                    Execute(connection, _journal == SqliteJournal.Wal ? "PRAGMA journal_mode=WAL" : "PRAGMA journal_mode=DELETE");
                    _journalSet = true;
                }
            }

            Execute(connection, _pragmas);
            return connection;
        }
        catch
        {
            connection.Dispose();
            throw;
        }
    }

    /// <summary>A WAL checkpoint (<c>PASSIVE</c>, what an application's automatic checkpoints do, or <c>TRUNCATE</c>) on a connection of its own.</summary>
    public void Checkpoint(string mode = "PASSIVE")
    {
        if (_journal != SqliteJournal.Wal)
        {
            return;
        }

        using var connection = Connect();
        Execute(connection, $"PRAGMA wal_checkpoint({mode})");
    }

    /// <summary>Runs <paramref name="sql"/> (several statements allowed), reading every row a pragma returns.</summary>
    public static void Execute(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        using var reader = command.ExecuteReader();
        do
        {
            while (reader.Read())
            {
            }
        }
        while (reader.NextResult());
    }

    /// <summary>Closes the pooled connections, so the file is closed before its directory goes.</summary>
    public void Dispose()
    {
        if (_pooling)
        {
            using var connection = new SqliteConnection(_connectionString);
            SqliteConnection.ClearPool(connection);
        }
    }
}
