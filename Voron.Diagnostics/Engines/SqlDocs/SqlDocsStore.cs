using Microsoft.Data.Sqlite;
using Voron.Documents;
using Voron.LoadTests.Experiments.Documents;
using Voron.SqliteVfs;
using Voron.LoadTests.Stores.Voron;

namespace Voron.Diagnostics.Engines.SqlDocs;

/// <summary>
/// One Voron store as both Voron engines of the <c>sqldocs</c> experiment use it: a durable
/// <see cref="StorageEnvironment"/>, the <see cref="DocumentStore"/> over it with the city and age
/// indexes, and a SQLite VFS registration of it holding the purchases table in database
/// <c>main</c>; with <c>bindDocuments</c> the document store is bound to the VFS (UseDocuments),
/// so SQL on it reaches the documents.
/// </summary>
internal sealed class SqlDocsStore : IDisposable
{
    public const string Database = "main";

    private SqlDocsStore(StorageEnvironment environment, DocumentStore documents, VoronSqliteRegistration registration)
    {
        Environment = environment;
        Documents = documents;
        Registration = registration;
    }

    public StorageEnvironment Environment { get; }

    public DocumentStore Documents { get; }

    public VoronSqliteRegistration Registration { get; }

    public const string Durability = VoronStore.Durability;

    /// <summary>Opens the store and loads the profiles (the document API's bulk insert, indexes defined first) and the purchases (SQL).</summary>
    public static async Task<SqlDocsStore> CreateAsync(string directory, long documents, bool bindDocuments)
    {
        var environment = VoronStore.Open(directory);
        DocumentStore? store = null;
        VoronSqliteRegistration? registration = null;
        try
        {
            store = DocumentStore.Open(environment);
            await store.EnsureIndexAsync(IndexDefinition.For(ProfileJson.Default.Profile, SqlDocsData.CityIndex, p => p.City)).ConfigureAwait(false);
            await store.EnsureIndexAsync(IndexDefinition.For(ProfileJson.Default.Profile, SqlDocsData.AgeIndex, p => p.Age)).ConfigureAwait(false);
            await store.BulkInsertAsync(LongRange(documents).Select(ProfileDataSet.Create), ProfileJson.Default.Profile).ConfigureAwait(false);
            registration = VoronStore.RegisterSql(environment, "voron-sqldocs");
            if (bindDocuments)
            {
                registration.UseDocuments(store);
            }

            using (var connection = registration.OpenConnection(Database))
            {
                SqlDocsData.PreloadPurchases(connection, documents);
            }

            environment.FlushToDataFile();
            return new SqlDocsStore(environment, store, registration);
        }
        catch
        {
            registration?.Dispose();
            store?.Dispose();
            environment.Dispose();
            throw;
        }
    }

    /// <summary>A connection to the purchases' database (pooled), waiting for locks as the SQLite peer does.</summary>
    public SqliteConnection Connect()
    {
        var connection = Registration.OpenConnection(Database);
        SqlDocsData.Execute(connection, "PRAGMA busy_timeout=60000");
        return connection;
    }

    private static IEnumerable<long> LongRange(long count)
    {
        for (long i = 0; i < count; i++)
        {
            yield return i;
        }
    }

    public void Dispose()
    {
        Registration.Dispose();
        Documents.Dispose();
        Environment.Dispose();
    }
}
