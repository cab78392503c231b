
namespace Voron.Diagnostics.Engines.SqlDocs;

/// <summary>
/// Documents through SQL: the profiles of a Voron store exposed as a <c>voron_docs</c> virtual
/// table (<c>profiles</c>, with path columns name, city and age) on the store's VFS, next to the
/// ordinary SQL table of purchases in the same database; queries use the store's indexes through
/// the module's plans. Connections are Microsoft.Data.Sqlite's, pooled, statements prepared.
/// A SQL transaction over both tables commits as one store transaction.
/// </summary>
internal sealed class VoronSqlDocsEngine : ISqlDocsEngine, Voron.LoadTests.Capabilities.Orders.ISqlCounted
{
    public const string CreateTable =
        "CREATE VIRTUAL TABLE IF NOT EXISTS profiles USING voron_docs(Profile, name='$.name' TEXT, city='$.city' TEXT, age='$.age' INTEGER)";

    private readonly SqlDocsStore _store;

    private VoronSqlDocsEngine(SqlDocsStore store) => _store = store;

    public static async Task<VoronSqlDocsEngine> CreateAsync(string directory, long documents)
    {
        var store = await SqlDocsStore.CreateAsync(directory, documents, bindDocuments: true).ConfigureAwait(false);
        try
        {
            using var connection = store.Connect();
            SqlDocsData.Execute(connection, CreateTable);
            return new VoronSqlDocsEngine(store);
        }
        catch
        {
            store.Dispose();
            throw;
        }
    }

    public string Name => SqlDocsEngines.VoronSqlDocs;

    public global::Voron.SqliteVfs.VoronSqliteStatistics SqlStatistics() => _store.Registration.GetStatistics(SqlDocsStore.Database);

    public long JournalWrites => _store.Environment.JournalWrites;

    public string Durability => SqlDocsStore.Durability + " (one store transaction for the table rows and the documents of a SQL transaction)";

    public bool UsesThreads => true;

    public ISqlDocsCaller CreateCaller() => new SqlDocsSqlCaller(_store.Connect(), SqlDocsStatements.VoronDocs);

    public void Settle() => _store.Environment.FlushToDataFile();

    public IReadOnlyDictionary<string, string> Plans()
    {
        using var connection = _store.Connect();
        return SqlDocsEngines.Plans(connection, SqlDocsStatements.VoronDocs);
    }

    public void Dispose() => _store.Dispose();
}
