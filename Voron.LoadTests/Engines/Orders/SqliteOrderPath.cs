using Microsoft.Data.Sqlite;
using Voron.LoadTests.Engines.Sqlite;
using Voron.LoadTests.Measurement;

namespace Voron.LoadTests.Engines.Orders;

/// <summary>
/// (d) Stock SQLite with the relational schema (<see cref="RelationalOrders"/>), as a knowledgeable
/// user sets it up through Microsoft.Data.Sqlite: one database file in WAL mode,
/// <c>synchronous=FULL</c> (a commit returns after the WAL's fsync), pooled connections with the
/// large page cache, <c>busy_timeout</c> so concurrent writers wait for the write lock inside SQLite.
/// On a simulated slower disk the connections use <see cref="SimulatedDisk.SqliteVfs"/>: every
/// xSync waits the delay first, inside the commit (and the checkpoint) that makes it.
/// </summary>
internal sealed class SqliteOrderPath : IOrderPath
{
    private readonly string _connectionString;

    private SqliteOrderPath(string directory, SimulatedDisk disk) =>
        _connectionString = new SqliteConnectionStringBuilder { DataSource = Path.Combine(directory, "orders.db"), Pooling = true, Vfs = disk.SqliteVfs }.ToString();

    public static SqliteOrderPath Open(string directory, OrdersSize size, SimulatedDisk disk)
    {
        var path = new SqliteOrderPath(directory, disk);
        try
        {
            using var connection = path.Connect();
            SqliteCommands.Execute(connection, "PRAGMA journal_mode=WAL");
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

    public string Durability => $"WAL, synchronous=FULL: a commit returns after the WAL fsync; busy_timeout={OrderSql.BusyTimeoutMs} for concurrent writers";

    public bool UsesThreads => true;

    private SqliteConnection Connect()
    {
        var connection = new SqliteConnection(_connectionString);
        try
        {
            connection.Open();
        }
        catch
        {
            connection.Dispose();
            throw;
        }

        return RelationalOrders.Configured(connection, "PRAGMA synchronous=FULL");
    }

    public IOrderCaller CreateCaller() => new RelationalOrderCaller(Connect());

    /// <summary>
    /// A PASSIVE checkpoint: what an application gets (SQLite's automatic checkpoints are passive);
    /// it copies what it can without waiting for readers or writers.
    /// </summary>
    public void Settle()
    {
        using var connection = Connect();
        SqliteCommands.Execute(connection, "PRAGMA wal_checkpoint(PASSIVE)");
    }

    public IReadOnlyDictionary<string, string> Plans()
    {
        using var connection = Connect();
        return RelationalOrders.Plans(connection);
    }

    public void Dispose()
    {
        using var connection = new SqliteConnection(_connectionString);
        SqliteConnection.ClearPool(connection); // closes the pooled connections: the file is closed before the directory goes
    }
}
