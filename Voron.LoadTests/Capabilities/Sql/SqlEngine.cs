using Voron.SqliteVfs;
using Voron.LoadTests.Stores.Sqlite;
using Voron.LoadTests.Stores.Voron;

namespace Voron.LoadTests.Capabilities.Sql;

/// <summary>
/// One side of the <c>sql</c> experiment: SQLite through Microsoft.Data.Sqlite, its databases
/// kept by stock SQLite in files (<see cref="SqliteWal"/>, <see cref="SqliteRollback"/>, opened
/// durably by <see cref="SqliteStore"/>, without its large page cache) or inside one Voron store
/// through Voron.SqliteVfs (<see cref="Voron"/>, opened by <see cref="VoronStore"/>;
/// journal_mode=MEMORY as VoronSqliteRegistration.OpenConnection sets it).
/// </summary>
internal sealed class SqlEngine : IDisposable, Orders.ISqlCounted
{
    internal const string Voron = "voron";
    internal const string SqliteWal = "sqlite-wal";
    internal const string SqliteRollback = "sqlite-rollback";

    internal static readonly string[] All = [Voron, SqliteWal, SqliteRollback];

    private readonly string _directory;
    private readonly StorageEnvironment? _environment;
    private readonly VoronSqliteRegistration? _registration;
    private readonly System.Collections.Concurrent.ConcurrentDictionary<string, bool> _databases = new(StringComparer.Ordinal);
    private readonly System.Collections.Concurrent.ConcurrentDictionary<int, SqliteStore> _files = new();

    private SqlEngine(string name, string directory)
    {
        Name = name;
        _directory = directory;
        if (name == Voron)
        {
            _environment = VoronStore.Open(directory);
            _registration = VoronStore.RegisterSql(_environment, "voron-sql");
        }
    }

    public string Name { get; }

    /// <summary>The Voron store (null for stock SQLite).</summary>
    public StorageEnvironment? Environment => _environment;

    public static SqlEngine Open(string name, string directory) => new(name, directory);

    /// <summary>A new connection to database <paramref name="database"/>, ready for the workload.</summary>
    public SqliteConnection Connect(int database)
    {
        if (_registration == null)
        {
            return _files.GetOrAdd(database, d => new SqliteStore(
                Path.Combine(_directory, $"db{d}.db"), journal: Name == SqliteWal ? SqliteJournal.Wal : SqliteJournal.Rollback, pageCache: false, busyTimeout: true)).Connect();
        }

        _databases.TryAdd("db" + database, true);
        var connection = _registration.OpenConnection("db" + database);
        Execute(connection, $"PRAGMA busy_timeout={SqliteStore.BusyTimeoutMs}");
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
        else
        {
            foreach (var file in _files.Values)
            {
                file.Checkpoint(); // none in the rollback journal
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
