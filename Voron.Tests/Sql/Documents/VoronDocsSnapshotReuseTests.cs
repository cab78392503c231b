namespace Voron.Tests.Sql.Documents;

/// <summary>
/// SD3, V2: a SQL transaction reads one store snapshot, taken when SQLite takes SHARED, and every
/// statement of it — over voron_docs tables and plain tables alike — reads that snapshot: no
/// statement begins a store read transaction or opens the database's page file again. Counted
/// through the database's internal count of snapshots taken.
/// </summary>
public sealed class VoronDocsSnapshotReuseTests
{
    private const string CreateOrders = "CREATE VIRTUAL TABLE orders USING voron_docs(orders, customer='$.customer' TEXT, total='$.total' INTEGER)";

    private static readonly string[] Reads =
    [
        "SELECT count(*) FROM orders",
        "SELECT total FROM orders WHERE id = 'orders/2'",
        "SELECT count(*) FROM orders WHERE customer = 'c1'",
        "SELECT count(*) FROM lines",
        "SELECT count(*) FROM orders o JOIN lines l ON l.id = o.id",
    ];

    private static DocsStore NewStore()
    {
        var store = new DocsStore();
        using var connection = store.Open();
        connection.Execute(CreateOrders);
        connection.Execute("CREATE TABLE lines(id TEXT PRIMARY KEY, n INTEGER)");
        for (var i = 1; i <= 5; i++)
        {
            connection.Execute("INSERT INTO orders(id, customer, total) VALUES ($id, $c, $t)", ("$id", $"orders/{i}"), ("$c", $"c{i % 2}"), ("$t", i * 10));
            connection.Execute("INSERT INTO lines VALUES ($id, $n)", ("$id", $"orders/{i}"), ("$n", i));
        }

        return store;
    }

    private static long SnapshotsTaken(DocsStore store) => store.Sql.Registration.Databases.Get("db").SnapshotsTaken;

    [Fact]
    public void The_statements_of_a_read_transaction_over_documents_and_tables_share_one_store_snapshot()
    {
        using var store = NewStore();
        using var connection = store.Open();
        connection.Execute("SELECT 1 FROM lines LIMIT 1"); // SQLite has read the schema
        var before = SnapshotsTaken(store);

        connection.Execute("BEGIN");
        foreach (var read in Reads)
        {
            _ = connection.Query(read);
        }

        connection.Execute("COMMIT");

        Assert.Equal(1, SnapshotsTaken(store) - before);
    }

    [Fact]
    public void The_statements_of_a_write_transaction_over_documents_and_tables_share_one_store_snapshot()
    {
        using var store = NewStore();
        using var connection = store.Open();
        connection.Execute("SELECT 1 FROM lines LIMIT 1");
        var before = SnapshotsTaken(store);

        // Nothing commits in between, so the snapshot taken at SHARED is the newest state at
        // RESERVED (V5) and the writer keeps it.
        connection.Execute("BEGIN IMMEDIATE");
        connection.Execute("INSERT INTO orders(id, customer, total) VALUES ('orders/9', 'c9', 90)");
        connection.Execute("UPDATE orders SET total = total + 1 WHERE customer = 'c1'");
        connection.Execute("INSERT INTO lines VALUES ('orders/9', 9)");
        foreach (var read in Reads)
        {
            _ = connection.Query(read);
        }

        connection.Execute("COMMIT");

        Assert.Equal(1, SnapshotsTaken(store) - before);
        Assert.Equal(6L, connection.Scalar<long>("SELECT count(*) FROM orders o JOIN lines l ON l.id = o.id"));
    }

    [Fact]
    public void Each_statement_outside_a_transaction_is_a_transaction_of_its_own_with_one_store_snapshot()
    {
        using var store = NewStore();
        using var connection = store.Open();
        connection.Execute("SELECT 1 FROM lines LIMIT 1");
        var before = SnapshotsTaken(store);

        foreach (var read in Reads)
        {
            _ = connection.Query(read);
        }

        Assert.Equal(Reads.Length, SnapshotsTaken(store) - before);
    }
}
