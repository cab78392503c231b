using Voron.SqliteVfs.Documents;

namespace Voron.Tests.Sql.Documents;

/// <summary>V13–V14 and SD5–SD8 (Voron.SqliteVfs.Documents/DocsTable.cs, Voron.SqliteVfs/Databases/DatabaseState.cs): one store transaction under both front doors.</summary>
public sealed class CrossDoorCommitTests
{
    private sealed class Store : IDisposable
    {
        public Store()
        {
            Sql = new SqlStore();
            Documents = DocumentStore.Open(Sql.Environment);
            Sql.Registration.UseDocuments(Documents);
        }

        public SqlStore Sql { get; }

        public DocumentStore Documents { get; }

        public SqliteConnection Open(string database = "main") => Sql.Open(database);

        public void Dispose()
        {
            Sql.Registration.Dispose();
            Documents.Dispose();
            Sql.Dispose();
        }
    }

    internal static string Plan(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = "EXPLAIN QUERY PLAN " + sql;
        using var reader = command.ExecuteReader();
        var details = new List<string>();
        while (reader.Read())
        {
            details.Add(reader.GetString(3));
        }

        return string.Join(" | ", details);
    }

    private static void CreateTables(SqliteConnection connection)
    {
        connection.Execute("CREATE VIRTUAL TABLE orders USING voron_docs(Order, customer='$.customer' TEXT, total='$.total' REAL)");
        connection.Execute("CREATE TABLE order_rows(id TEXT PRIMARY KEY, total REAL)");
    }

    [Fact]
    public void A_transaction_over_a_table_and_documents_is_one_store_transaction()
    {
        using var store = new Store();
        using var connection = store.Open();
        CreateTables(connection);
        var before = store.Sql.Environment.LastCommittedTransactionId;
        using (var transaction = connection.BeginTransaction())
        {
            connection.Execute("INSERT INTO orders(id, customer, total) VALUES ('orders/1', 'ada', 12.5)");
            connection.Execute("INSERT INTO order_rows VALUES ('orders/1', 12.5)");
            Assert.Equal(12.5, connection.Scalar<double>("SELECT total FROM orders WHERE id = 'orders/1'")); // read-your-writes (SD3)
            transaction.Commit();
        }

        Assert.Equal(before + 1, store.Sql.Environment.LastCommittedTransactionId);
        using var other = store.Open();
        Assert.Equal(12.5, other.Scalar<double>("SELECT o.total FROM orders o JOIN order_rows r ON r.id = o.id"));
        Assert.Equal("ada", other.Scalar<string>("SELECT json_extract(body, '$.customer') FROM orders"));
    }

    [Fact]
    public void A_rollback_leaves_neither_the_row_nor_the_document()
    {
        using var store = new Store();
        using var connection = store.Open();
        CreateTables(connection);
        using (var transaction = connection.BeginTransaction())
        {
            connection.Execute("INSERT INTO orders(id, total) VALUES ('orders/1', 1)");
            connection.Execute("INSERT INTO order_rows VALUES ('orders/1', 1)");
            transaction.Rollback();
        }

        Assert.Equal(0, connection.Scalar<long>("SELECT count(*) FROM orders"));
        Assert.Equal(0, connection.Scalar<long>("SELECT count(*) FROM order_rows"));
    }

    [Fact]
    public async Task A_document_changed_by_a_session_since_the_transaction_read_it_fails_the_commit_and_nothing_is_kept()
    {
        using var store = new Store();
        using var connection = store.Open();
        CreateTables(connection);
        connection.Execute("INSERT INTO orders(id, total) VALUES ('orders/1', 1)");
        using (var transaction = connection.BeginTransaction())
        {
            connection.Execute("UPDATE orders SET total = 2 WHERE id = 'orders/1'");
            connection.Execute("INSERT INTO order_rows VALUES ('orders/1', 2)");
            await using (var session = store.Documents.OpenSession())
            {
                session.StoreRaw("Order", "orders/1", """{"total":3}"""u8);
                await session.SaveChangesAsync();
            }

            var error = Assert.Throws<SqliteException>(transaction.Commit);
            Assert.Equal(19, error.SqliteErrorCode); // SQLITE_CONSTRAINT
            Assert.IsType<ConcurrencyException>(VoronSqlite.LastError);
        }

        Assert.Equal(0, connection.Scalar<long>("SELECT count(*) FROM order_rows"));
        Assert.Equal(3.0, connection.Scalar<double>("SELECT total FROM orders WHERE id = 'orders/1'"));
        connection.Execute("INSERT INTO order_rows VALUES ('orders/2', 5)"); // the connection stays usable
        Assert.Equal(1, connection.Scalar<long>("SELECT count(*) FROM order_rows"));
    }

    [Fact]
    public async Task A_documents_only_statement_commits_and_sessions_see_it_with_its_index()
    {
        using var store = new Store();
        await store.Documents.EnsureIndexAsync(new IndexDefinition("Order", "ByCustomer", "$.customer"));
        using var connection = store.Open();
        CreateTables(connection);
        var before = store.Sql.Environment.LastCommittedTransactionId;
        connection.Execute("INSERT INTO orders(id, customer, total) VALUES ('orders/1', 'ada', 3), ('orders/2', 'bob', 4)");
        Assert.Equal(before + 1, store.Sql.Environment.LastCommittedTransactionId);

        await using var session = store.Documents.OpenSession();
        var raw = await session.QueryRaw("Order").Where("customer", QueryOperator.Equal, "bob").ToListAsync();
        Assert.Equal(["orders/2"], raw.Select(r => r.Id));
        Assert.Contains("index ByCustomer (customer=?)", Plan(connection, "SELECT id FROM orders WHERE customer = 'bob'"));
        Assert.Equal("orders/2", connection.Scalar<string>("SELECT id FROM orders WHERE customer = 'bob'"));
    }

    [Fact]
    public void A_multi_row_insert_failing_on_its_third_row_leaves_nothing_and_savepoints_undo_their_part()
    {
        using var store = new Store();
        using var connection = store.Open();
        CreateTables(connection);
        connection.Execute("INSERT INTO orders(id, total) VALUES ('orders/9', 9)");
        var error = Assert.Throws<SqliteException>(() => connection.Execute("INSERT INTO orders(id, total) VALUES ('orders/1', 1), ('orders/2', 2), ('orders/9', 3)"));
        Assert.Equal(19, error.SqliteErrorCode);
        Assert.Equal(1, connection.Scalar<long>("SELECT count(*) FROM orders"));

        using (var transaction = connection.BeginTransaction())
        {
            connection.Execute("INSERT INTO orders(id, total) VALUES ('orders/1', 1)");
            connection.Execute("SAVEPOINT s");
            connection.Execute("INSERT INTO orders(id, total) VALUES ('orders/2', 2)");
            connection.Execute("UPDATE orders SET total = 10 WHERE id = 'orders/9'");
            connection.Execute("ROLLBACK TO s");
            connection.Execute("RELEASE s");
            transaction.Commit();
        }

        Assert.Equal("orders/1,orders/9", connection.Scalar<string>("SELECT group_concat(id) FROM (SELECT id FROM orders ORDER BY id)"));
        Assert.Equal(9.0, connection.Scalar<double>("SELECT total FROM orders WHERE id = 'orders/9'"));
    }

    [Fact]
    public async Task V14_the_merged_operation_refuses_a_change_whose_expected_version_is_not_the_stored_one()
    {
        using var store = new Store();
        await using (var session = store.Documents.OpenSession())
        {
            session.StoreRaw("Order", "orders/1", """{"total":1}"""u8);
            await session.SaveChangesAsync();
        }

        var stale = new DocumentCommit(store.Documents, [new PendingDocument("orders/1", "orders/1"u8.ToArray(), "Order", """{"total":2}"""u8.ToArray(), new Expectation(999))]);
        var error = await Assert.ThrowsAsync<ConcurrencyException>(() => store.Sql.Environment.ExecuteAsync(stale.Apply));
        Assert.Equal(999, error.ExpectedVersion);

        await using (var session = store.Documents.OpenSession())
        {
            using var stored = await session.LoadRawAsync("orders/1");
            Assert.Equal("""{"total":1}""", System.Text.Encoding.UTF8.GetString(stored!.Json.Span));
        }
    }

    [Fact]
    public async Task V16_a_deferred_transaction_that_read_a_document_a_session_then_changed_cannot_write_over_it()
    {
        using var store = new Store();
        using var reader = store.Open();
        reader.DefaultTimeout = 1; // Microsoft.Data.Sqlite retries SQLITE_BUSY_SNAPSHOT, too, for the command timeout (30 s by default)
        using var other = store.Open();
        CreateTables(reader);
        reader.Execute("INSERT INTO orders(id, total) VALUES ('orders/1', 1)");
        other.Execute("CREATE TABLE elsewhere(a)");

        reader.Execute("BEGIN"); // deferred: reads at SHARED, takes the write lock at its first write
        Assert.Equal(1.0, reader.Scalar<double>("SELECT total FROM orders WHERE id = 'orders/1'"));
        other.Execute("INSERT INTO elsewhere VALUES (1)"); // a commit of pages the reader never read: V5 would move its snapshot forward
        await using (var session = store.Documents.OpenSession())
        {
            session.StoreRaw("Order", "orders/1", """{"total":50}"""u8);
            await session.SaveChangesAsync();
        }

        var error = Assert.Throws<SqliteException>(() => reader.Execute("UPDATE orders SET total = 2 WHERE id = 'orders/1'"));
        Assert.Equal((5, 517), (error.SqliteErrorCode, error.SqliteExtendedErrorCode)); // SQLITE_BUSY_SNAPSHOT, as in WAL mode (V6, V16)
        reader.Execute("ROLLBACK");
        Assert.Equal(50.0, reader.Scalar<double>("SELECT total FROM orders WHERE id = 'orders/1'"));
    }

    [Fact]
    public void Insert_or_ignore_skips_an_existing_id_and_insert_or_replace_replaces_it()
    {
        using var store = new Store();
        using var connection = store.Open();
        CreateTables(connection);
        connection.Execute("INSERT INTO orders(id, customer, total) VALUES ('orders/1', 'ada', 1)");

        connection.Execute("INSERT OR IGNORE INTO orders(id, customer, total) VALUES ('orders/1', 'bob', 2), ('orders/2', 'cy', 3)");
        Assert.Equal("ada:1.0,cy:3.0", connection.Scalar<string>("SELECT group_concat(customer || ':' || total) FROM (SELECT customer, total FROM orders ORDER BY id)"));

        connection.Execute("INSERT OR REPLACE INTO orders(id, customer) VALUES ('orders/1', 'dee')");
        Assert.Equal("""{"customer":"dee"}""", connection.Scalar<string>("SELECT body FROM orders WHERE id = 'orders/1'"));
    }
}
