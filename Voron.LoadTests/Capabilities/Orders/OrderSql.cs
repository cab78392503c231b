using Voron.LoadTests.Stores.Sqlite;
using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>
/// The SQL the three SQL paths share, written once: an <c>orders</c> table with columns
/// customer, created_at, status, total and version (a relational table or a <c>voron_docs</c>
/// table with those columns), the report over it, and the optimistic status update.
/// </summary>
internal static class OrderSql
{
    public const string Report =
        "SELECT status, count(*), sum(total) FROM orders WHERE customer = $customer AND created_at >= $from GROUP BY status ORDER BY status";

    public const string ReadVersion = "SELECT version FROM orders WHERE id = $id";

    /// <summary>Prepares <see cref="Report"/> on <paramref name="connection"/>.</summary>
    public static SqliteCommand PrepareReport(SqliteConnection connection) =>
        SqliteCommands.Prepare(connection, Report, ("$customer", SqliteType.Text), ("$from", SqliteType.Text));

    public static SqliteCommand PrepareReadVersion(SqliteConnection connection) =>
        SqliteCommands.Prepare(connection, ReadVersion, ("$id", SqliteType.Text));

    /// <summary>Runs a command prepared by <see cref="PrepareReport"/>.</summary>
    public static IReadOnlyList<StatusTotal> RunReport(SqliteCommand report, string customer, string from)
    {
        report.Parameters[0].Value = customer;
        report.Parameters[1].Value = from;
        var rows = new List<StatusTotal>(OrdersData.Statuses.Length);
        using var reader = report.ExecuteReader();
        while (reader.Read())
        {
            rows.Add(new StatusTotal(reader.GetString(0), reader.GetInt64(1), reader.GetDouble(2)));
        }

        return rows;
    }

    /// <summary>
    /// The status update as one write transaction: <c>BEGIN IMMEDIATE</c> (so the read and the
    /// write hold the write lock together), read the version, <c>UPDATE ... WHERE id = $id AND
    /// version = $version</c> (<paramref name="update"/>, parameters $id, $status, $version),
    /// <c>COMMIT</c>. False when the update changed nothing.
    /// </summary>
    public static bool UpdateStatus(SqliteConnection connection, SqliteCommand readVersion, SqliteCommand update, string id, string status)
    {
        using var transaction = connection.BeginTransaction(); // BEGIN IMMEDIATE
        readVersion.Transaction = transaction;
        update.Transaction = transaction;
        readVersion.Parameters[0].Value = id;
        var version = readVersion.ExecuteScalar() ?? throw new InvalidOperationException($"order '{id}' is missing");
        update.Parameters[0].Value = id;
        update.Parameters[1].Value = status;
        update.Parameters[2].Value = version;
        var changed = update.ExecuteNonQuery();
        transaction.Commit();
        return changed == 1;
    }

    /// <summary>EXPLAIN QUERY PLAN of the path's query and of <see cref="Report"/>, for <see cref="IOrderPath.Plans"/>.</summary>
    public static IReadOnlyDictionary<string, string> Plans(SqliteConnection connection, string query)
    {
        var (customer, from, to) = OrderPaths.PlanArguments;
        return new Dictionary<string, string>
        {
            [OrderPaths.QueryPlan] = SqliteCommands.Plan(connection, query, ("$customer", customer), ("$from", from), ("$to", to), ("$take", 20)),
            [OrderPaths.ReportPlan] = SqliteCommands.Plan(connection, Report, ("$customer", customer), ("$from", from)),
        };
    }
}
