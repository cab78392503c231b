using Voron.LoadTests.Stores.Sqlite;
using Voron.LoadTests.Capabilities.Orders;
using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Stores.Sqlite;

/// <summary>
/// (d) Stock SQLite with the relational schema (<see cref="RelationalOrders"/>), opened durably
/// by <see cref="SqliteStore"/> as a knowledgeable user sets it up: one database file in WAL mode,
/// <c>synchronous=FULL</c>, pooled connections with the large page cache, <c>busy_timeout</c> so
/// concurrent writers wait for the write lock inside SQLite, the run's disk.
/// </summary>
internal sealed class SqliteOrderPath : IOrderPath
{
    private readonly SqliteStore _store;

    private SqliteOrderPath(string directory, SimulatedDisk disk) =>
        _store = new SqliteStore(Path.Combine(directory, "orders.db"), disk, pooling: true, busyTimeout: true);

    public static SqliteOrderPath Open(string directory, OrdersSize size, SimulatedDisk disk)
    {
        var path = new SqliteOrderPath(directory, disk);
        try
        {
            using var connection = path._store.Connect();
            RelationalOrders.Create(connection, size);
            SqliteCommands.Execute(connection, "PRAGMA wal_checkpoint(TRUNCATE)");
            return path;
        }
        catch
        {
            path.Dispose();
            throw;
        }
    }

    public string Name => OrderPaths.Sqlite;

    public string Description => "stock SQLite (WAL) through Microsoft.Data.Sqlite: relational tables customers, products, orders, order_lines";

    public string Durability => _store.Durability;

    public bool UsesThreads => true;

    public IOrderCaller CreateCaller() => new RelationalOrderCaller(_store.Connect());

    /// <summary>
    /// A PASSIVE checkpoint: what an application gets (SQLite's automatic checkpoints are passive);
    /// it copies what it can without waiting for readers or writers.
    /// </summary>
    public void Settle() => _store.Checkpoint();

    public IReadOnlyDictionary<string, string> Plans()
    {
        using var connection = _store.Connect();
        return RelationalOrders.Plans(connection);
    }

    public void Dispose() => _store.Dispose();
}
