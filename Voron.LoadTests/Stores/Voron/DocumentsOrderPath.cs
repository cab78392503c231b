using Voron.Documents;
using Voron.LoadTests.Capabilities.Orders;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// (a) Voron.Documents as an app uses it: one <see cref="DocumentStore"/> in Durable mode (over a
/// store opened on the run's disk, as the SQL paths open theirs: <see cref="VoronStore.Open"/>),
/// collections by type (Customer, Product, Order), a session per unit of work, typed calls with
/// the source-generated <see cref="OrdersJson"/>, and one compound index on Order (customer,
/// createdAt) that serves both the query and the report. C# has no &lt;/&gt;= on strings, so the
/// date range is written as the LINQ subset takes it: <c>string.CompareOrdinal(o.CreatedAt, from) &gt;= 0</c>
/// (ordinal, as the index orders strings). The update is the session's own optimistic
/// concurrency: load, change, save; the save checks the loaded version (ConcurrencyException).
/// The report reads the customer's orders through the index and adds them up in C#. Sealed
/// (<c>documents-sealed</c>) when opened with a key.
/// </summary>
internal sealed class DocumentsOrderPath : IOrderPath
{
    public const string OrderIndex = "orders_by_customer_created";

    private static readonly OrdersJson Json = OrdersJson.Default;

    private readonly StorageEnvironment _environment;
    private readonly DocumentStore _store;

    private readonly bool _sealed;

    private DocumentsOrderPath(StorageEnvironment environment, DocumentStore store, bool isSealed)
    {
        _environment = environment;
        _store = store;
        _sealed = isSealed;
    }

    /// <param name="sealingKey">The key to seal the store with (<see cref="VoronStore.NewSealingKey"/>); null: not sealed.</param>
    public static async Task<DocumentsOrderPath> OpenAsync(string directory, OrdersSize size, SimulatedDisk disk, byte[]? sealingKey = null)
    {
        var environment = VoronStore.Open(directory, disk, sealingKey: sealingKey);
        DocumentStore? store = null;
        try
        {
            store = DocumentStore.Open(environment);
            await LoadAsync(store, size).ConfigureAwait(false);
            environment.FlushToDataFile();
            return new DocumentsOrderPath(environment, store, sealingKey != null);
        }
        catch
        {
            store?.Dispose();
            environment.Dispose();
            throw;
        }
    }

    /// <summary>Bulk-inserts the data of <paramref name="size"/>, then defines the order index (built over them); the sql-docs path loads the same way.</summary>
    internal static async Task LoadAsync(DocumentStore store, OrdersSize size)
    {
        await store.BulkInsertAsync(OrdersData.Customers(size), Json.Customer).ConfigureAwait(false);
        await store.BulkInsertAsync(OrdersData.Products(size), Json.Product).ConfigureAwait(false);
        await store.BulkInsertAsync(OrdersData.Orders(size), Json.Order).ConfigureAwait(false);
        await store.EnsureIndexAsync(IndexDefinition.For(Json.Order, OrderIndex, o => o.Customer, o => o.CreatedAt)).ConfigureAwait(false);
    }

    public string Name => _sealed ? OrderPaths.DocumentsSealed : OrderPaths.Documents;

    public string Description => "Voron.Documents: sessions, typed LINQ queries on a compound index (customer, createdAt)";

    public string Durability => "Durable mode: SaveChangesAsync completes after the journal fdatasync covering it; concurrent sessions share transactions and flushes through the merger" +
                                (_sealed ? $"; {VoronStore.Sealing}" : "");

    public bool UsesThreads => false;

    /// <summary>Test hook: runs in <see cref="IOrderCaller.UpdateStatusAsync"/> between the load and the save, so a test can make another writer win.</summary>
    internal Func<Task>? BetweenReadAndWrite { get; set; }

    public IOrderCaller CreateCaller() => new Caller(this);

    public void Settle() => _store.Environment.FlushToDataFile();

    public IReadOnlyDictionary<string, string> Plans()
    {
        var (customer, from, to) = OrderPaths.PlanArguments;
        using var session = _store.OpenSession();
        return new Dictionary<string, string>
        {
            [OrderPaths.QueryPlan] = Query(session, customer, from, to, 20).Explain(),
            [OrderPaths.ReportPlan] = Since(session, customer, from).Explain(),
        };
    }

    public void Dispose()
    {
        _store.Dispose();
        _environment.Dispose();
    }

    private static IDocumentQuery<Order> Since(IAsyncDocumentSession session, string customer, string from) =>
        session.Query(Json.Order).Where(o => o.Customer == customer && string.CompareOrdinal(o.CreatedAt, from) >= 0);

    private static IDocumentQuery<Order> Query(IAsyncDocumentSession session, string customer, string from, string to, int take) =>
        session.Query(Json.Order)
            .Where(o => o.Customer == customer && string.CompareOrdinal(o.CreatedAt, from) >= 0 && string.CompareOrdinal(o.CreatedAt, to) < 0)
            .OrderBy(o => o.CreatedAt)
            .Take(take);

    private sealed class Caller(DocumentsOrderPath path) : IOrderCaller
    {
        public async ValueTask CreateOrderAsync(Order order)
        {
            await using var session = path._store.OpenSession();
            session.Store(order, Json.Order);
            await session.SaveChangesAsync().ConfigureAwait(false);
        }

        public async ValueTask<Order?> LoadOrderAsync(string id)
        {
            await using var session = path._store.OpenSession();
            return await session.LoadAsync(id, Json.Order).ConfigureAwait(false);
        }

        public async ValueTask<IReadOnlyList<Order>> QueryOrdersAsync(string customer, string from, string to, int take)
        {
            await using var session = path._store.OpenSession();
            return await Query(session, customer, from, to, take).ToListAsync().ConfigureAwait(false);
        }

        public async ValueTask<bool> UpdateStatusAsync(string id, string status)
        {
            await using var session = path._store.OpenSession();
            var order = await session.LoadAsync(id, Json.Order).ConfigureAwait(false) ?? throw new InvalidOperationException($"order '{id}' is missing");
            order.Status = status;
            if (path.BetweenReadAndWrite is { } hook)
            {
                await hook().ConfigureAwait(false);
            }

            try
            {
                await session.SaveChangesAsync().ConfigureAwait(false); // expected version: the one loaded
                return true;
            }
            catch (ConcurrencyException)
            {
                return false;
            }
        }

        public async ValueTask<IReadOnlyList<StatusTotal>> ReportAsync(string customer, string from)
        {
            await using var session = path._store.OpenSession();
            return StatusTotal.Of(await Since(session, customer, from).ToListAsync().ConfigureAwait(false));
        }

        public void Dispose()
        {
        }
    }
}
