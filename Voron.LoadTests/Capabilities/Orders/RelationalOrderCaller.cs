using Voron.LoadTests.Stores.Sqlite;
using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>
/// A caller of a relational path (<see cref="RelationalOrders"/>): its own connection and every
/// statement prepared once, re-bound per call. Reads are single statements (one snapshot each);
/// writes are explicit transactions begun IMMEDIATE, as read-then-write transactions should be.
/// </summary>
internal sealed class RelationalOrderCaller : IOrderCaller
{
    private readonly SqliteConnection _connection;
    private readonly RelationalOrderWriter _writer;
    private readonly SqliteCommand _load;
    private readonly SqliteCommand _query;
    private readonly SqliteCommand _readVersion;
    private readonly SqliteCommand _update;
    private readonly SqliteCommand _report;

    /// <summary>Takes ownership of <paramref name="connection"/>.</summary>
    public RelationalOrderCaller(SqliteConnection connection)
    {
        _connection = connection;
        _writer = new RelationalOrderWriter(connection);
        _load = SqliteCommands.Prepare(connection, RelationalOrders.Load, ("$id", SqliteType.Text));
        _query = SqliteCommands.Prepare(connection, RelationalOrders.Query,
            ("$customer", SqliteType.Text), ("$from", SqliteType.Text), ("$to", SqliteType.Text), ("$take", SqliteType.Integer));
        _readVersion = OrderSql.PrepareReadVersion(connection);
        _update = SqliteCommands.Prepare(connection, RelationalOrders.UpdateStatus, ("$id", SqliteType.Text), ("$status", SqliteType.Text), ("$version", SqliteType.Integer));
        _report = OrderSql.PrepareReport(connection);
    }

    public ValueTask CreateOrderAsync(Order order)
    {
        using var transaction = _connection.BeginTransaction(); // BEGIN IMMEDIATE
        _writer.Insert(order, transaction);
        transaction.Commit();
        return ValueTask.CompletedTask;
    }

    public ValueTask<Order?> LoadOrderAsync(string id)
    {
        _load.Parameters[0].Value = id;
        return ValueTask.FromResult(ReadOrders(_load).SingleOrDefault());
    }

    public ValueTask<IReadOnlyList<Order>> QueryOrdersAsync(string customer, string from, string to, int take)
    {
        _query.Parameters[0].Value = customer;
        _query.Parameters[1].Value = from;
        _query.Parameters[2].Value = to;
        _query.Parameters[3].Value = take;
        return ValueTask.FromResult<IReadOnlyList<Order>>(ReadOrders(_query));
    }

    public ValueTask<bool> UpdateStatusAsync(string id, string status) =>
        ValueTask.FromResult(OrderSql.UpdateStatus(_connection, _readVersion, _update, id, status));

    public ValueTask<IReadOnlyList<StatusTotal>> ReportAsync(string customer, string from) =>
        ValueTask.FromResult(OrderSql.RunReport(_report, customer, from));

    /// <summary>Orders from rows of <see cref="RelationalOrders"/>' order columns: consecutive rows of one id are one order's lines.</summary>
    private static List<Order> ReadOrders(SqliteCommand command)
    {
        var orders = new List<Order>();
        using var reader = command.ExecuteReader();
        Order? order = null;
        while (reader.Read())
        {
            var id = reader.GetString(0);
            if (order == null || !string.Equals(order.Id, id, StringComparison.Ordinal))
            {
                order = new Order
                {
                    Id = id,
                    Customer = reader.GetString(1),
                    CreatedAt = reader.GetString(2),
                    Status = reader.GetString(3),
                    Total = reader.GetDouble(4),
                    ShipTo = new ShipTo { Street = reader.GetString(5), City = reader.GetString(6), Zip = reader.GetString(7) },
                };
                orders.Add(order);
            }

            order.Lines.Add(new OrderLine { Product = reader.GetString(8), Quantity = reader.GetInt32(9), Price = reader.GetDouble(10) });
        }

        return orders;
    }

    public void Dispose()
    {
        _writer.Dispose();
        _load.Dispose();
        _query.Dispose();
        _readVersion.Dispose();
        _update.Dispose();
        _report.Dispose();
        _connection.Dispose();
    }
}
