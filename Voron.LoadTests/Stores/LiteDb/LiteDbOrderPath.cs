using LiteDB;
using Voron.LoadTests.Capabilities.Orders;

namespace Voron.LoadTests.Stores.LiteDb;

/// <summary>
/// (e) LiteDB 5 as <see cref="LiteDbDocumentEngine"/> configures it: one shared
/// <see cref="LiteDatabase"/> in direct mode, typed collections mapped by its <see cref="BsonMapper"/>
/// (Order.Id is <c>_id</c>), <c>InsertBulk</c> for the load, <c>EnsureIndex</c> on Customer. LiteDB
/// plans a query on one index: the customer equality (the most selective) picks it, and the
/// date range and the order are done on that customer's orders. Optimistic concurrency is by hand
/// with <see cref="Order.Version"/>, checked and raised in an explicit transaction. Writes go one at
/// a time through a lock, as in the documents experiment's engine (LiteDB writes one at a time and
/// refuses more than 100 open transactions). On a simulated slower disk each commit is followed,
/// inside that lock, by one delay (<see cref="SimulatedDisk"/>): LiteDB's streams are its own, so
/// its log's flush cannot be slowed where it happens, but the next writer waits as it would.
/// </summary>
internal sealed class LiteDbOrderPath : IOrderPath
{
    private const int BulkBatch = 10_000;

    /// <summary>The range query, in LiteDB's expression language (@0 customer, @1 from, @2 to).</summary>
    private const string InRange = "$.Customer = @0 AND $.CreatedAt >= @1 AND $.CreatedAt < @2";

    private const string Since = "$.Customer = @0 AND $.CreatedAt >= @1";

    private readonly LiteDatabase _database;
    private readonly ILiteCollection<Order> _orders;
    private readonly object _writes = new();
    private readonly SimulatedDisk _disk;

    private LiteDbOrderPath(string directory, SimulatedDisk disk)
    {
        _disk = disk;
        _database = LiteDbStore.Open(Path.Combine(directory, "orders.litedb"));
        _orders = _database.GetCollection<Order>("orders");
    }

    public static LiteDbOrderPath Open(string directory, OrdersSize size, SimulatedDisk disk)
    {
        var path = new LiteDbOrderPath(directory, disk);
        try
        {
            path._database.GetCollection<Customer>("customers").InsertBulk(OrdersData.Customers(size), BulkBatch);
            path._database.GetCollection<Product>("products").InsertBulk(OrdersData.Products(size), BulkBatch);
            path._orders.InsertBulk(OrdersData.Orders(size), BulkBatch);
            path._orders.EnsureIndex(o => o.Customer);
            path._database.Checkpoint();
            return path;
        }
        catch
        {
            path.Dispose();
            throw;
        }
    }

    public string Name => OrderPaths.LiteDb;

    public string Description => "LiteDB 5.0.20 (direct connection): typed collections, an index on Customer, versions checked in a transaction";

    public string Durability => LiteDbStore.Durability;

    public bool UsesThreads => true;

    /// <summary>Test hook: runs in <see cref="IOrderCaller.UpdateStatusAsync"/> between the read and the checked write, so a test can make another writer win.</summary>
    internal Action? BetweenReadAndWrite { get; set; }

    public IOrderCaller CreateCaller() => new Caller(this);

    public void Settle() => _database.Checkpoint();

    public IReadOnlyDictionary<string, string> Plans()
    {
        var (customer, from, to) = OrderPaths.PlanArguments;
        return new Dictionary<string, string>
        {
            [OrderPaths.QueryPlan] = Query(customer, from, to, 20).GetPlan().ToString(),
            [OrderPaths.ReportPlan] = _orders.Query().Where(Since, customer, from).GetPlan().ToString(),
        };
    }

    public void Dispose() => _database.Dispose();

    private ILiteQueryableResult<Order> Query(string customer, string from, string to, int take) =>
        _orders.Query().Where(InRange, customer, from, to).OrderBy("$.CreatedAt").Limit(take);

    private sealed class Caller(LiteDbOrderPath path) : IOrderCaller
    {
        public ValueTask CreateOrderAsync(Order order)
        {
            lock (path._writes)
            {
                path._orders.Insert(order);
                path._disk.Delay(); // the commit's log flush, slower: still holding the writers' lock
            }

            return ValueTask.CompletedTask;
        }

        public ValueTask<Order?> LoadOrderAsync(string id) => ValueTask.FromResult<Order?>(path._orders.FindById(id));

        public ValueTask<IReadOnlyList<Order>> QueryOrdersAsync(string customer, string from, string to, int take) =>
            ValueTask.FromResult<IReadOnlyList<Order>>(path.Query(customer, from, to, take).ToList());

        public ValueTask<bool> UpdateStatusAsync(string id, string status)
        {
            var order = path._orders.FindById(id) ?? throw new InvalidOperationException($"order '{id}' is missing");
            var loaded = order.Version;
            order.Status = status;
            path.BetweenReadAndWrite?.Invoke();
            lock (path._writes)
            {
                return ValueTask.FromResult(CheckAndUpdate(order, loaded));
            }
        }

        /// <summary>Writes <paramref name="order"/> with the next version if the stored one is still <paramref name="loaded"/>.</summary>
        private bool CheckAndUpdate(Order order, int loaded)
        {
            path._database.BeginTrans();
            try
            {
                if (path._orders.FindById(order.Id)?.Version != loaded)
                {
                    path._database.Rollback();
                    return false;
                }

                order.Version = loaded + 1;
                path._orders.Update(order);
                path._database.Commit();
                path._disk.Delay(); // the commit's log flush, slower: the caller holds the writers' lock
                return true;
            }
            catch
            {
                path._database.Rollback();
                throw;
            }
        }

        public ValueTask<IReadOnlyList<StatusTotal>> ReportAsync(string customer, string from) =>
            ValueTask.FromResult(StatusTotal.Of(path._orders.Query().Where(Since, customer, from).ToEnumerable()));

        public void Dispose()
        {
        }
    }
}
