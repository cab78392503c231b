using System.Text.Json;
using Voron.Documents;
using Voron.LoadTests.Stores.Sqlite;
using Voron.SqliteVfs;
using Voron.LoadTests.Capabilities.Orders;
using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// A caller of <see cref="SqlDocsOrderPath"/>: its own connection, statements on the
/// <c>voron_docs</c> table prepared once. Orders go in and come out as their JSON (<c>body</c>),
/// serialized with <see cref="OrdersJson"/>; the update sets the status column, which sets the
/// document's path, guarded by the hidden version column.
/// </summary>
internal sealed class SqlDocsOrderCaller : IOrderCaller
{
    public const string Insert = "INSERT INTO orders(id, body) VALUES ($id, $body)";

    public const string Load = "SELECT body FROM orders WHERE id = $id";

    public const string Query =
        "SELECT body FROM orders WHERE customer = $customer AND created_at >= $from AND created_at < $to ORDER BY created_at LIMIT $take";

    public const string UpdateStatus = "UPDATE orders SET status = $status WHERE id = $id AND version = $version";

    private const int SqliteConstraint = 19;

    private static readonly OrdersJson Json = OrdersJson.Default;

    private readonly SqliteConnection _connection;
    private readonly SqliteCommand _insert;
    private readonly SqliteCommand _load;
    private readonly SqliteCommand _query;
    private readonly SqliteCommand _readVersion;
    private readonly SqliteCommand _update;
    private readonly SqliteCommand _report;

    /// <summary>Takes ownership of <paramref name="connection"/>.</summary>
    public SqlDocsOrderCaller(SqliteConnection connection)
    {
        _connection = connection;
        _insert = SqliteCommands.Prepare(connection, Insert, ("$id", SqliteType.Text), ("$body", SqliteType.Text));
        _load = SqliteCommands.Prepare(connection, Load, ("$id", SqliteType.Text));
        _query = SqliteCommands.Prepare(connection, Query, ("$customer", SqliteType.Text), ("$from", SqliteType.Text), ("$to", SqliteType.Text), ("$take", SqliteType.Integer));
        _readVersion = OrderSql.PrepareReadVersion(connection);
        _update = SqliteCommands.Prepare(connection, UpdateStatus, ("$id", SqliteType.Text), ("$status", SqliteType.Text), ("$version", SqliteType.Integer));
        _report = OrderSql.PrepareReport(connection);
    }

    public ValueTask CreateOrderAsync(Order order)
    {
        _insert.Parameters[0].Value = order.Id;
        _insert.Parameters[1].Value = JsonSerializer.Serialize(order, Json.Order);
        _insert.ExecuteNonQuery(); // autocommit: one statement, one durable transaction
        return ValueTask.CompletedTask;
    }

    public ValueTask<Order?> LoadOrderAsync(string id)
    {
        _load.Parameters[0].Value = id;
        using var reader = _load.ExecuteReader();
        return ValueTask.FromResult(reader.Read() ? Parse(reader.GetString(0)) : null);
    }

    public ValueTask<IReadOnlyList<Order>> QueryOrdersAsync(string customer, string from, string to, int take)
    {
        _query.Parameters[0].Value = customer;
        _query.Parameters[1].Value = from;
        _query.Parameters[2].Value = to;
        _query.Parameters[3].Value = take;
        var orders = new List<Order>(take);
        using var reader = _query.ExecuteReader();
        while (reader.Read())
        {
            orders.Add(Parse(reader.GetString(0)));
        }

        return ValueTask.FromResult<IReadOnlyList<Order>>(orders);
    }

    /// <summary>
    /// False when the guarded UPDATE changed nothing, or when COMMIT fails with SQLITE_CONSTRAINT
    /// because a concurrent writer changed the document (docs/sql.md: the commit's
    /// ConcurrencyException; nothing is kept and the connection stays usable).
    /// </summary>
    public ValueTask<bool> UpdateStatusAsync(string id, string status)
    {
        try
        {
            return ValueTask.FromResult(OrderSql.UpdateStatus(_connection, _readVersion, _update, id, status));
        }
        catch (SqliteException e) when (e.SqliteErrorCode == SqliteConstraint && VoronSqlite.LastError is ConcurrencyException)
        {
            return ValueTask.FromResult(false);
        }
    }

    public ValueTask<IReadOnlyList<StatusTotal>> ReportAsync(string customer, string from) =>
        ValueTask.FromResult(OrderSql.RunReport(_report, customer, from));

    private static Order Parse(string json) => JsonSerializer.Deserialize(json, Json.Order) ?? throw new InvalidOperationException("a stored order is JSON null");

    public void Dispose()
    {
        _insert.Dispose();
        _load.Dispose();
        _query.Dispose();
        _readVersion.Dispose();
        _update.Dispose();
        _report.Dispose();
        _connection.Dispose();
    }
}
