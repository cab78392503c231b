using Voron.LoadTests.Capabilities.Sql;
using Voron.SqliteVfs;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// Voron's side of the <c>sql</c> suite: every database inside one Voron store opened by
/// <see cref="VoronStore"/>, through Voron.SqliteVfs (journal_mode=MEMORY as
/// VoronSqliteRegistration.OpenConnection sets it), with busy_timeout for the concurrent writers.
/// </summary>
internal sealed class VoronSqlEngine : ISqlEngine
{
    private const string AllDatabases = "every database";

    private readonly StorageEnvironment _environment;
    private readonly VoronSqliteRegistration _registration;
    private readonly System.Collections.Concurrent.ConcurrentDictionary<string, bool> _databases = new(StringComparer.Ordinal);

    public VoronSqlEngine(string directory)
    {
        _environment = VoronStore.Open(directory);
        _registration = VoronStore.RegisterSql(_environment, "voron-sql");
    }

    public string Name => SqlEngines.Voron;

    public bool HasJournal => true;

    public long JournalBytesWritten => _environment.JournalBytesWritten;

    public long JournalWrites => _environment.JournalWrites;

    public SqliteConnection Connect(int database)
    {
        _databases.TryAdd("db" + database, true);
        var connection = _registration.OpenConnection("db" + database);
        SqliteCommands.Execute(connection, $"PRAGMA busy_timeout={Sqlite.SqliteStore.BusyTimeoutMs}");
        return connection;
    }

    public void Settle() => _environment.FlushToDataFile();

    /// <summary>The counters of every database the workload opened, added up.</summary>
    public VoronSqliteStatistics SqlStatistics() => Measurement.SqlCounterRows.Sum(AllDatabases, _databases.Keys.Select(_registration.GetStatistics));

    public void Dispose()
    {
        _registration.Dispose();
        _environment.Dispose();
    }
}
