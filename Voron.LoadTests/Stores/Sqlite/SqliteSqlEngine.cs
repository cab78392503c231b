using Voron.LoadTests.Capabilities.Sql;
using Voron.SqliteVfs;

namespace Voron.LoadTests.Stores.Sqlite;

/// <summary>
/// Stock SQLite's side of the <c>sql</c> suite: each database a file of its own, opened durably by
/// <see cref="SqliteStore"/> in WAL (<see cref="SqlEngines.SqliteWal"/>) or the rollback journal
/// (<see cref="SqlEngines.SqliteRollback"/>), without its large page cache, with busy_timeout for
/// the concurrent writers.
/// </summary>
internal sealed class SqliteSqlEngine : ISqlEngine
{
    private readonly string _directory;
    private readonly SqliteJournal _journal;
    private readonly System.Collections.Concurrent.ConcurrentDictionary<int, SqliteStore> _files = new();

    public SqliteSqlEngine(string name, string directory, SqliteJournal journal)
    {
        Name = name;
        _directory = directory;
        _journal = journal;
    }

    public string Name { get; }

    public bool HasJournal => false;

    public long JournalBytesWritten => 0;

    public long JournalWrites => 0;

    public SqliteConnection Connect(int database) =>
        _files.GetOrAdd(database, d => new SqliteStore(
            Path.Combine(_directory, $"db{d}.db"), journal: _journal, pageCache: false, busyTimeout: true)).Connect();

    public void Settle()
    {
        foreach (var file in _files.Values)
        {
            file.Checkpoint(); // none in the rollback journal
        }
    }

    /// <summary>Stock SQLite has no counters: an empty row.</summary>
    public VoronSqliteStatistics SqlStatistics() => new() { Database = "every database" };

    public void Dispose()
    {
    }
}
