using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>
/// The relational form of the orders workload, shared by the <c>sql-voron</c> and <c>sqlite</c>
/// paths (which differ only in how a connection is opened): the schema,
/// the bulk load, and the statements (<see cref="RelationalOrderCaller"/> runs them). Tables with a
/// text key are WITHOUT ROWID (the key is the b-tree's key: a lookup reads one tree, not an index
/// and then the table); <c>orders(customer, created_at)</c> serves the query, its ORDER BY and the
/// report; <c>order_lines</c> is clustered by (order_id, line_no), so an order's lines are adjacent.
/// </summary>
internal static class RelationalOrders
{
    public const string Schema = """
        CREATE TABLE customers(id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, city TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE products(id TEXT PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL) WITHOUT ROWID;
        CREATE TABLE orders(id TEXT PRIMARY KEY, customer TEXT NOT NULL, created_at TEXT NOT NULL, status TEXT NOT NULL, total REAL NOT NULL,
            ship_street TEXT NOT NULL, ship_city TEXT NOT NULL, ship_zip TEXT NOT NULL, version INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE order_lines(order_id TEXT NOT NULL, line_no INTEGER NOT NULL, product TEXT NOT NULL, quantity INTEGER NOT NULL, price REAL NOT NULL,
            PRIMARY KEY(order_id, line_no)) WITHOUT ROWID;
        """;

    public const string Indexes = "CREATE INDEX orders_by_customer_created ON orders(customer, created_at)";

    public const string InsertCustomer = "INSERT INTO customers(id, name, email, city) VALUES ($id, $name, $email, $city)";

    public const string InsertProduct = "INSERT INTO products(id, name, price) VALUES ($id, $name, $price)";

    public const string InsertOrder = "INSERT INTO orders(id, customer, created_at, status, total, ship_street, ship_city, ship_zip, version) " +
                                      "VALUES ($id, $customer, $created_at, $status, $total, $ship_street, $ship_city, $ship_zip, 1)";

    public const string InsertLine = "INSERT INTO order_lines(order_id, line_no, product, quantity, price) VALUES ($order_id, $line_no, $product, $quantity, $price)";

    /// <summary>The columns <see cref="RelationalOrderCaller"/> materializes an order from: the order's, then one line's (one row per line, in line order).</summary>
    private const string OrderColumns = "o.id, o.customer, o.created_at, o.status, o.total, o.ship_street, o.ship_city, o.ship_zip, l.product, l.quantity, l.price";

    /// <summary>One order with its lines: one statement, so one snapshot (an inner join: every order has at least one line).</summary>
    public const string Load = $"SELECT {OrderColumns} FROM orders o JOIN order_lines l ON l.order_id = o.id WHERE o.id = $id ORDER BY l.line_no";

    /// <summary>The customer's first orders in the range (the index gives them in order, LIMIT stops it), then their lines.</summary>
    public const string Query =
        "WITH o AS (SELECT * FROM orders WHERE customer = $customer AND created_at >= $from AND created_at < $to ORDER BY created_at LIMIT $take) " +
        $"SELECT {OrderColumns} FROM o JOIN order_lines l ON l.order_id = o.id ORDER BY o.created_at, l.line_no";

    public const string UpdateStatus = "UPDATE orders SET status = $status, version = version + 1 WHERE id = $id AND version = $version";

    /// <summary>Orders per transaction of the bulk load (with their lines).</summary>
    private const int Batch = 10_000;

    /// <summary>
    /// Creates the tables on an empty database and loads <paramref name="size"/>'s data in
    /// transactions of prepared inserts (customers and products in one, orders with their lines
    /// <see cref="Batch"/> orders at a time), then creates the index over the loaded rows.
    /// </summary>
    public static void Create(SqliteConnection connection, OrdersSize size)
    {
        SqliteCommands.Execute(connection, Schema);
        using var customer = SqliteCommands.Prepare(connection, InsertCustomer, ("$id", SqliteType.Text), ("$name", SqliteType.Text), ("$email", SqliteType.Text), ("$city", SqliteType.Text));
        using var product = SqliteCommands.Prepare(connection, InsertProduct, ("$id", SqliteType.Text), ("$name", SqliteType.Text), ("$price", SqliteType.Real));
        using (var transaction = connection.BeginTransaction())
        {
            customer.Transaction = transaction;
            product.Transaction = transaction;
            foreach (var c in OrdersData.Customers(size))
            {
                Run(customer, c.Id, c.Name, c.Email, c.City);
            }

            foreach (var p in OrdersData.Products(size))
            {
                Run(product, p.Id, p.Name, p.Price);
            }

            transaction.Commit();
        }

        using var writer = new RelationalOrderWriter(connection);
        foreach (var batch in OrdersData.Orders(size).Chunk(Batch))
        {
            using var transaction = connection.BeginTransaction();
            foreach (var order in batch)
            {
                writer.Insert(order, transaction);
            }

            transaction.Commit();
        }

        SqliteCommands.Execute(connection, Indexes);
    }

    /// <summary>Binds <paramref name="values"/> to <paramref name="command"/>'s parameters in order and runs it.</summary>
    public static int Run(SqliteCommand command, params object?[] values)
    {
        for (var i = 0; i < values.Length; i++)
        {
            command.Parameters[i].Value = values[i] ?? DBNull.Value;
        }

        return command.ExecuteNonQuery();
    }

    public static IReadOnlyDictionary<string, string> Plans(SqliteConnection connection) => OrderSql.Plans(connection, Query);
}
