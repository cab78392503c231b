using Voron.Documents;
using Voron.SqliteVfs;
using Voron.LoadTests.Capabilities.Orders;
using Voron.LoadTests.Stores.Sqlite;
using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// (c) SQL over documents: the orders are documents of a <see cref="DocumentStore"/> (loaded and
/// indexed as <see cref="DocumentsOrderPath"/> does it: the bulk insert, then the compound index on
/// customer and createdAt), and SQL reaches them through a <c>voron_docs</c> table on the store's
/// VFS with the store bound (UseDocuments). The index's paths are declared columns, so voron_docs
/// pushes the customer equality, the created_at range and the ORDER BY down to it
/// (<see cref="Plans"/> shows it). Customers and products are documents too. Sealed
/// (<c>sql-docs-sealed</c>) when opened with a key.
/// </summary>
internal sealed class SqlDocsOrderPath : IOrderPath, ISqlCounted
{
    public const string CreateTable =
        "CREATE VIRTUAL TABLE orders USING voron_docs(Order, customer='$.customer' TEXT, created_at='$.createdAt' TEXT, status='$.status' TEXT, total='$.total' REAL)";

    private readonly StorageEnvironment _environment;
    private readonly DocumentStore _store;
    private readonly VoronSqliteRegistration _registration;

    private readonly bool _sealed;

    private SqlDocsOrderPath(StorageEnvironment environment, DocumentStore store, VoronSqliteRegistration registration, bool isSealed)
    {
        _environment = environment;
        _store = store;
        _registration = registration;
        _sealed = isSealed;
    }

    /// <param name="sealingKey">The key to seal the store with (<see cref="VoronStore.NewSealingKey"/>); null: not sealed.</param>
    public static async Task<SqlDocsOrderPath> OpenAsync(string directory, OrdersSize size, SimulatedDisk disk, byte[]? sealingKey = null)
    {
        var environment = VoronStore.Open(directory, disk, sealingKey: sealingKey);
        DocumentStore? store = null;
        VoronSqliteRegistration? registration = null;
        try
        {
            store = DocumentStore.Open(environment);
            await DocumentsOrderPath.LoadAsync(store, size).ConfigureAwait(false);
            registration = VoronStore.RegisterSql(environment, "voron-orders").UseDocuments(store);
            var path = new SqlDocsOrderPath(environment, store, registration, sealingKey != null);
            using (var connection = path.Connect())
            {
                SqliteCommands.Execute(connection, CreateTable);
            }

            environment.FlushToDataFile();
            return path;
        }
        catch
        {
            registration?.Dispose();
            store?.Dispose();
            environment.Dispose();
            throw;
        }
    }

    public string Name => _sealed ? OrderPaths.SqlDocsSealed : OrderPaths.SqlDocs;

    public string Description => "SQL over documents: a voron_docs table on Vfs=voron over the Order documents, pushed down to their compound index";

    public string Durability => $"{SqlVoronOrderPath.VoronDurability} (a SQL transaction's document changes are one store transaction); busy_timeout={SqliteStore.BusyTimeoutMs}" +
                                (_sealed ? $"; {VoronStore.Sealing}" : "");

    public bool UsesThreads => true;

    private SqliteConnection Connect() => SqlVoronOrderPath.Configured(_registration.OpenConnection(SqlVoronOrderPath.Database));

    public IOrderCaller CreateCaller() => new SqlDocsOrderCaller(Connect());

    public void Settle() => _environment.FlushToDataFile();

    public VoronSqliteStatistics SqlStatistics() => _registration.GetStatistics(SqlVoronOrderPath.Database);

    public long JournalWrites => _environment.JournalWrites;

    public IReadOnlyDictionary<string, string> Plans()
    {
        using var connection = Connect();
        return OrderSql.Plans(connection, SqlDocsOrderCaller.Query);
    }

    public void Dispose()
    {
        _registration.Dispose();
        _store.Dispose();
        _environment.Dispose();
    }
}
