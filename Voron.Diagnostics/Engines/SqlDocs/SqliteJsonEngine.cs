using Microsoft.Data.Sqlite;
using Voron.LoadTests.Experiments.Documents;
using Voron.LoadTests.Stores.Sqlite;

namespace Voron.Diagnostics.Engines.SqlDocs;

/// <summary>
/// Stock SQLite holding the documents as JSON text, as a knowledgeable user sets it up through
/// Microsoft.Data.Sqlite: <c>profiles(id TEXT PRIMARY KEY, body TEXT)</c> beside the purchases
/// table in one database file, indexes on <c>json_extract(body, '$.city')</c> and
/// <c>json_extract(body, '$.age')</c> (queries written with the same expressions, so the planner
/// uses them), opened durably by <see cref="SqliteStore"/> (WAL, <c>synchronous=FULL</c>), pooled
/// connections with a large page cache, statements prepared once per connection, and
/// <c>busy_timeout</c> so concurrent writers wait for the write lock inside SQLite.
/// </summary>
internal sealed class SqliteJsonEngine : ISqlDocsEngine
{
    private const int Batch = 10_000;

    private readonly SqliteStore _store;

    private SqliteJsonEngine(string directory) =>
        _store = new SqliteStore(Path.Combine(directory, "profiles.db"), pooling: true, busyTimeout: true);

    public string Name => SqlDocsEngines.Sqlite;

    public string Durability => _store.Durability;

    public bool UsesThreads => true;

    /// <summary>Creates the database with <paramref name="documents"/> profiles (transactions of 10,000, indexes defined first) and the purchases.</summary>
    public static SqliteJsonEngine Create(string directory, long documents)
    {
        var engine = new SqliteJsonEngine(directory);
        using var connection = engine._store.Connect();
        SqlDocsData.Execute(connection, """
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

    public ISqlDocsCaller CreateCaller() => new SqlDocsSqlCaller(_store.Connect(), SqlDocsStatements.JsonText);

    public void Settle() => _store.Checkpoint();

    public IReadOnlyDictionary<string, string> Plans()
    {
        using var connection = _store.Connect();
        return SqlDocsEngines.Plans(connection, SqlDocsStatements.JsonText);
    }

    public void Dispose() => _store.Dispose();
}
