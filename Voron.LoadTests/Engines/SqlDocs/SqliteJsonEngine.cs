using Microsoft.Data.Sqlite;
using Voron.LoadTests.Engines.Sqlite;
using Voron.LoadTests.Experiments.Documents;

namespace Voron.LoadTests.Engines.SqlDocs;

/// <summary>
/// Stock SQLite holding the documents as JSON text, as a knowledgeable user sets it up through
/// Microsoft.Data.Sqlite: <c>profiles(id TEXT PRIMARY KEY, body TEXT)</c> beside the purchases
/// table in one database file, indexes on <c>json_extract(body, '$.city')</c> and
/// <c>json_extract(body, '$.age')</c> (queries written with the same expressions, so the planner
/// uses them), WAL with <c>synchronous=FULL</c> (a commit returns after the WAL's fsync), pooled
/// connections with a large page cache, statements prepared once per connection, and
/// <c>busy_timeout</c> so concurrent writers wait for the write lock inside SQLite.
/// </summary>
internal sealed class SqliteJsonEngine : ISqlDocsEngine
{
    /// <summary>A writer waits this long for the lock before SQLITE_BUSY (Microsoft.Data.Sqlite's own retry sleeps 150 ms).</summary>
    private const int BusyTimeoutMs = 60_000;

    private const int Batch = 10_000;

    private readonly string _connectionString;

    private SqliteJsonEngine(string directory) =>
        _connectionString = new SqliteConnectionStringBuilder { DataSource = Path.Combine(directory, "profiles.db"), Pooling = true }.ToString();

    public string Name => SqlDocsEngines.Sqlite;

    public string Durability => "WAL, synchronous=FULL: a commit returns after the WAL fsync; busy_timeout=60000 for concurrent writers";

    public bool UsesThreads => true;

    /// <summary>Creates the database with <paramref name="documents"/> profiles (transactions of 10,000, indexes defined first) and the purchases.</summary>
    public static SqliteJsonEngine Create(string directory, long documents)
    {
        var engine = new SqliteJsonEngine(directory);
        using var connection = engine.Open();
        SqlDocsData.Execute(connection, """
            PRAGMA journal_mode=WAL;
            CREATE TABLE IF NOT EXISTS profiles(id TEXT PRIMARY KEY, body TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS profiles_by_city ON profiles(json_extract(body, '$.city'));
            CREATE INDEX IF NOT EXISTS profiles_by_age ON profiles(json_extract(body, '$.age'));
            """);
        using var insert = SqlDocsData.Prepare(connection, SqlDocsStatements.JsonText.InsertProfile, ("$id", SqliteType.Text), ("$body", SqliteType.Text));
        for (long first = 0; first < documents; first += Batch)
        {
            using var transaction = connection.BeginTransaction();
            insert.Transaction = transaction;
            for (var i = first; i < first + Batch && i < documents; i++)
            {
                var profile = ProfileDataSet.Create(i);
                insert.Parameters[0].Value = profile.Id;
                insert.Parameters[1].Value = SqlDocsData.Json(profile);
                insert.ExecuteNonQuery();
            }

            transaction.Commit();
        }

        SqlDocsData.PreloadPurchases(connection, documents);
        SqlDocsData.Execute(connection, "PRAGMA wal_checkpoint(TRUNCATE)");
        return engine;
    }

    private SqliteConnection Open()
    {
        var connection = new SqliteConnection(_connectionString);
        connection.Open();
        SqlDocsData.Execute(connection, $"PRAGMA synchronous=FULL; PRAGMA busy_timeout={BusyTimeoutMs}; PRAGMA cache_size={SqliteKvEngine.CacheSizePragma};");
        return connection;
    }

    public ISqlDocsCaller CreateCaller() => new SqlDocsSqlCaller(Open(), SqlDocsStatements.JsonText);

    public void Settle()
    {
        using var connection = Open();
        SqlDocsData.Execute(connection, "PRAGMA wal_checkpoint(PASSIVE)");
    }

    public IReadOnlyDictionary<string, string> Plans()
    {
        using var connection = Open();
        return SqlDocsEngines.Plans(connection, SqlDocsStatements.JsonText);
    }

    public void Dispose()
    {
        using var connection = new SqliteConnection(_connectionString);
        SqliteConnection.ClearPool(connection); // closes the pooled connections: the file is closed before the directory goes
    }
}
