using Voron.LoadTests.Stores.Sqlite;
using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>The two prepared inserts that store an order relationally: its row in <c>orders</c> and one <c>order_lines</c> row per line.</summary>
internal sealed class RelationalOrderWriter(SqliteConnection connection) : IDisposable
{
    private readonly SqliteCommand _order = SqliteCommands.Prepare(connection, RelationalOrders.InsertOrder,
        ("$id", SqliteType.Text), ("$customer", SqliteType.Text), ("$created_at", SqliteType.Text), ("$status", SqliteType.Text), ("$total", SqliteType.Real),
        ("$ship_street", SqliteType.Text), ("$ship_city", SqliteType.Text), ("$ship_zip", SqliteType.Text));

    private readonly SqliteCommand _line = SqliteCommands.Prepare(connection, RelationalOrders.InsertLine,
        ("$order_id", SqliteType.Text), ("$line_no", SqliteType.Integer), ("$product", SqliteType.Text), ("$quantity", SqliteType.Integer), ("$price", SqliteType.Real));

    /// <summary>Inserts <paramref name="order"/> inside <paramref name="transaction"/> (the caller commits).</summary>
    public void Insert(Order order, SqliteTransaction transaction)
    {
        _order.Transaction = transaction;
        _line.Transaction = transaction;
        RelationalOrders.Run(_order, order.Id, order.Customer, order.CreatedAt, order.Status, order.Total, order.ShipTo.Street, order.ShipTo.City, order.ShipTo.Zip);
        for (var i = 0; i < order.Lines.Count; i++)
        {
            var line = order.Lines[i];
            RelationalOrders.Run(_line, order.Id, i, line.Product, line.Quantity, line.Price);
        }
    }

    public void Dispose()
    {
        _order.Dispose();
        _line.Dispose();
    }
}
