using Microsoft.Data.Sqlite;
using Voron.SqliteVfs;

namespace Voron.LoadTests.Engines.Sql;

/// <summary>
/// One side of the <c>sql</c> experiment: SQLite through Microsoft.Data.Sqlite, its databases
/// kept by stock SQLite in files (<see cref="SqliteWal"/>, <see cref="SqliteRollback"/>, both
/// synchronous=FULL: durable) or inside one Voron store through Voron.SqliteVfs
/// (<see cref="Voron"/>, journal_mode=MEMORY as VoronSqliteRegistration.OpenConnection sets it).
/// </summary>
internal sealed class SqlEngine : IDisposable, Orders.ISqlCounted
{
    internal const string Voron = "voron";
    internal const string SqliteWal = "sqlite-wal";
    internal const string SqliteRollback = "sqlite-rollback";

    internal static readonly string[] All = [Voron, SqliteWal, SqliteRollback];

    /// <summary>Every connection of every engine waits this long for a lock before SQLITE_BUSY (Microsoft.Data.Sqlite would sleep 150 ms).</summary>
    private const int BusyTimeoutMs = 60_000;

    private readonly string _directory;
    private readonly StorageEnvironment? _environment;
    private readonly VoronSqliteRegistration? _registration;
    private readonly System.Collections.Concurrent.ConcurrentDictionary<string, bool> _databases = new(StringComparer.Ordinal);

    private SqlEngine(string name, string directory)
    {
        Name = name;
        _directory = directory;
        if (name == Voron)
        {
            _environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
            _registration = VoronSqlite.Register(_environment, "voron-sql-" + Guid.NewGuid().ToString("N")[..8]);
        }
    }

    public string Name { get; }

    /// <summary>The Voron store (null for stock SQLite).</summary>
    public StorageEnvironment? Environment => _environment;

    public static SqlEngine Open(string name, string directory) => new(name, directory);

    /// <summary>A new connection to database <paramref name="database"/>, ready for the workload.</summary>
    public SqliteConnection Connect(int database)
    {
        SqliteConnection connection;
        if (_registration != null)
        {
            _databases.TryAdd("db" + database, true);
            connection = _registration.OpenConnection("db" + database);
        }
        else
        {
            connection = new SqliteConnection(new SqliteConnectionStringBuilder
            {
                DataSource = Path.Combine(_directory, $"db{database}.db"),
                Pooling = false,
            }.ToString());
            connection.Open();
            Execute(connection, Name == SqliteWal ? "PRAGMA journal_mode=WAL" : "PRAGMA journal_mode=DELETE");
            Execute(connection, "PRAGMA synchronous=FULL");
        }

        Execute(connection, $"PRAGMA busy_timeout={BusyTimeoutMs}");
        return connection;
    }

    /// <summary>
    /// The work an engine defers past its commits, done at the end of each measured round so its
    /// bytes and time count: Voron's data-file flush, WAL's checkpoint.
    /// </summary>
    public void Settle()
    {
        if (_environment != null)
        {
            _environment.FlushToDataFile();
        }
        else if (Name == SqliteWal)
        {
            foreach (var file in Directory.GetFiles(_directory, "db*.db"))
            {
                using var connection = new SqliteConnection($"Data Source={file};Pooling=False");
                connection.Open();
                Execute(connection, "PRAGMA wal_checkpoint(PASSIVE)");
            }
        }
    }

    internal static void Execute(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    /// <summary>The counters of every database the workload opened, added up (Voron only; stock SQLite has none).</summary>
    public VoronSqliteStatistics SqlStatistics() =>
        _registration == null ? new VoronSqliteStatistics { Database = AllDatabases } : Measurement.SqlCounterRows.Sum(AllDatabases, _databases.Keys.Select(_registration.GetStatistics));

    public long JournalWrites => _environment?.JournalWrites ?? 0;

    private const string AllDatabases = "every database";

    public void Dispose()
    {
        _registration?.Dispose();
        _environment?.Dispose();
    }
}
