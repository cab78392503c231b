namespace Voron.Tests.Sql.Documents;

/// <summary>
/// voron_docs refuses what it must: the module where no documents can be reached, bad collection
/// names and column specs, bodies that are not one JSON object, duplicate ids, unique index
/// violations, writes to the read-only eponymous table. Each fails with the SQLite error code a
/// SQLite user expects and a message that says what is wrong, and leaves the documents and the
/// tables as they were.
/// </summary>
public sealed class VoronDocsErrorTests
{
    private const int SqliteError = 1;
    private const int SqliteConstraint = 19;

    private const string CreateOrders = "CREATE VIRTUAL TABLE orders USING voron_docs(orders, customer='$.customer' TEXT, email='$.email' TEXT, total='$.total' REAL)";

    /// <summary>A store with two orders, a plain table with a row, and the orders table.</summary>
    private static async Task<(DocsStore Store, SqliteConnection Connection)> NewStoreAsync()
    {
        var store = new DocsStore();
        await store.StoreRawAsync("orders", "orders/1", """{"customer":"ada","email":"ada@example.com","total":1}""");
        await store.StoreRawAsync("orders", "orders/2", """{"customer":"bob","email":"bob@example.com","total":2}""");
        var connection = store.Open();
        connection.Execute("CREATE TABLE t(x TEXT)");
        connection.Execute("INSERT INTO t VALUES ('before')");
        connection.Execute(CreateOrders);
        return (store, connection);
    }

    /// <summary>Everything a failed statement must leave as it was: the documents (as sessions read them), the schema, the plain table.</summary>
    private static async Task<string> SnapshotAsync(DocsStore store, SqliteConnection connection)
    {
        var documents = await store.CollectionAsync("orders");
        var versions = connection.Query("SELECT id, version FROM orders ORDER BY id").Select(DocsSql.Show);
        var schema = connection.Query("SELECT type, name, sql FROM sqlite_schema ORDER BY name").Select(DocsSql.Show);
        var rows = connection.Query("SELECT x FROM t ORDER BY x").Select(DocsSql.Show);
        return string.Join("\n", documents.Select(d => d.Id + " " + d.Json).Concat(versions).Concat(schema).Concat(rows));
    }

    private static SqliteException Fails(SqliteConnection connection, string sql, int code, params string[] words)
    {
        var error = Assert.Throws<SqliteException>(() => connection.Execute(sql));
        Assert.True(code == error.SqliteErrorCode, $"{sql}: SQLite error {error.SqliteErrorCode} ({error.Message}), expected {code}");
        foreach (var word in words)
        {
            Assert.True(error.Message.Contains(word, StringComparison.OrdinalIgnoreCase), $"{sql}: the message \"{error.Message}\" does not say '{word}'");
        }

        return error;
    }

    [Fact]
    public void The_module_on_a_database_that_is_not_on_a_voron_vfs_says_to_open_it_with_one()
    {
        using var store = new DocsStore(); // the module is registered with every connection of the process from now on
        using var memory = new SqliteConnection("Data Source=:memory:");
        memory.Open();
        Fails(memory, "CREATE VIRTUAL TABLE orders USING voron_docs(orders, customer='$.customer')", SqliteError, "voron_docs", "Vfs");
        Fails(memory, "SELECT * FROM voron_collection('orders')", SqliteError, "Vfs");
        Assert.Equal(0L, memory.Value("SELECT count(*) FROM sqlite_schema"));
    }

    [Fact]
    public void The_module_on_a_voron_vfs_without_a_document_store_says_to_bind_one()
    {
        using var store = new SqlStore(); // registered, but UseDocuments was never called
        using var connection = store.Open("db", pooling: false);
        Fails(connection, "CREATE VIRTUAL TABLE orders USING voron_docs(orders)", SqliteError, "UseDocuments");
        Fails(connection, "SELECT * FROM voron_collection('orders')", SqliteError, "UseDocuments");
        Assert.Equal(0L, connection.Value("SELECT count(*) FROM sqlite_schema"));
    }

    [Theory]
    [InlineData("voron_docs()", "collection")] // no collection at all
    [InlineData("voron_docs('')", "collection")]
    [InlineData("voron_docs('a/b')", "a/b")]
    [InlineData("voron_docs(\"a/b\", x='$.x')", "a/b")]
    [InlineData("voron_docs('bad\u0001name')", "collection")]
    [InlineData("voron_docs(xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)", "128")] // 130 bytes
    public async Task A_bad_collection_name_is_refused_and_names_the_problem(string module, string word)
    {
        var (store, connection) = await NewStoreAsync();
        using (store)
        using (connection)
        {
            var before = await SnapshotAsync(store, connection);
            Fails(connection, $"CREATE VIRTUAL TABLE bad USING {module}", SqliteError, word);
            Assert.Equal(before, await SnapshotAsync(store, connection));
        }
    }

    [Theory]
    [InlineData("x='$.a', x='$.b'", "'x'")] // duplicate name
    [InlineData("x='$.a', X='$.b'", "'x'")] // SQLite column names are case-insensitive
    [InlineData("id='$.id'", "'id'")] // reserved names
    [InlineData("body='$.body'", "'body'")]
    [InlineData("version='$.v'", "'version'")]
    [InlineData("last_modified='$.m'", "'last_modified'")]
    [InlineData("x='$.a' DATETIME2", "DATETIME2")] // unknown type
    [InlineData("x='$.a' TEXT TEXT", "'x'")]
    [InlineData("x='$.a[b'", "a[b")] // bad paths
    [InlineData("x='$.'", "'x'")]
    [InlineData("x='$..a'", "'x'")]
    [InlineData("x='$.a[]'", "'x'")] // a column holds one value, not each element
    [InlineData("x=''", "'x'")]
    [InlineData("x", "'x'")] // no path
    [InlineData("='$.a'", "$.a")] // no name
    public async Task A_bad_column_spec_is_refused_and_names_the_column_or_the_type_or_the_path(string columns, string word)
    {
        var (store, connection) = await NewStoreAsync();
        using (store)
        using (connection)
        {
            var before = await SnapshotAsync(store, connection);
            Fails(connection, $"CREATE VIRTUAL TABLE bad USING voron_docs(orders, {columns})", SqliteError, word);
            Assert.Equal(before, await SnapshotAsync(store, connection));

            // The same columns right are accepted: the failure was the spec, not the table.
            connection.Execute("CREATE VIRTUAL TABLE good USING voron_docs(orders, x='$.a', y='$.b.c' TEXT)");
            Assert.Equal(2L, connection.Value("SELECT count(*) FROM good"));
        }
    }

    [Theory]
    [InlineData("'[1,2]'")]
    [InlineData("'\"text\"'")]
    [InlineData("'42'")]
    [InlineData("'null'")]
    [InlineData("'not json'")]
    [InlineData("'{\"a\":1'")] // truncated
    [InlineData("'{\"a\":1} {\"b\":2}'")] // two objects
    [InlineData("''")]
    [InlineData("x'7b7d'")] // a blob, not text
    public async Task A_body_that_is_not_one_json_object_is_a_constraint_error_on_insert_and_update(string body)
    {
        var (store, connection) = await NewStoreAsync();
        using (store)
        using (connection)
        {
            var before = await SnapshotAsync(store, connection);
            Fails(connection, $"INSERT INTO orders(id, body) VALUES ('orders/3', {body})", SqliteConstraint, "JSON");
            Fails(connection, $"UPDATE orders SET body = {body} WHERE id = 'orders/1'", SqliteConstraint, "JSON");
            Fails(connection, $"INSERT OR REPLACE INTO orders(id, body) VALUES ('orders/2', {body})", SqliteConstraint, "JSON");
            Assert.Equal(before, await SnapshotAsync(store, connection));
        }
    }

    [Fact]
    public async Task A_duplicate_id_is_a_unique_constraint_error_naming_the_table_and_the_id()
    {
        var (store, connection) = await NewStoreAsync();
        using (store)
        using (connection)
        {
            var before = await SnapshotAsync(store, connection);
            Fails(connection, "INSERT INTO orders(id, customer) VALUES ('orders/1', 'eve')", SqliteConstraint, "UNIQUE constraint failed: orders.id", "orders/1");

            // In a transaction, after a write to the table: the statement fails, the transaction
            // goes on, and rolling it back leaves everything as before.
            connection.Execute("BEGIN IMMEDIATE");
            connection.Execute("INSERT INTO t VALUES ('in tx')");
            connection.Execute("INSERT INTO orders(id, customer) VALUES ('orders/9', 'new')");
            Fails(connection, "INSERT INTO orders(id, customer) VALUES ('orders/9', 'again')", SqliteConstraint, "UNIQUE constraint failed: orders.id", "orders/9");
            Assert.Equal("new", connection.Value("SELECT customer FROM orders WHERE id = 'orders/9'"));
            connection.Execute("ROLLBACK");
            Assert.Equal(before, await SnapshotAsync(store, connection));
        }
    }

    [Fact]
    public async Task A_unique_index_violation_is_a_constraint_error_naming_the_index_and_the_value()
    {
        var (store, connection) = await NewStoreAsync();
        using (store)
        using (connection)
        {
            await store.Documents.EnsureIndexAsync(new IndexDefinition("orders", "OrdersByEmail", "email").AsUnique());
            var before = await SnapshotAsync(store, connection);
            Fails(connection, "INSERT INTO orders(id, customer, email) VALUES ('orders/3', 'eve', 'ada@example.com')", SqliteConstraint, "OrdersByEmail", "ada@example.com");
            Fails(connection, "UPDATE orders SET email = 'bob@example.com' WHERE id = 'orders/1'", SqliteConstraint, "OrdersByEmail", "bob@example.com");
            Fails(connection, """INSERT INTO orders(id, body) VALUES ('orders/4', '{"email":"x@example.com"}'), ('orders/5', '{"email":"x@example.com"}')""", SqliteConstraint, "OrdersByEmail", "x@example.com");
            Assert.Equal(before, await SnapshotAsync(store, connection));
            store.Documents.CheckIntegrity();

            // Documents without the value are exempt, as in the document API.
            connection.Execute("INSERT INTO orders(id, customer) VALUES ('orders/6', 'no email'), ('orders/7', 'none either')");
            Assert.Equal(4L, connection.Value("SELECT count(*) FROM orders"));
        }
    }

    [Fact]
    public async Task A_unique_violation_found_at_commit_fails_the_commit_keeps_nothing_and_the_connection_usable()
    {
        var (store, connection) = await NewStoreAsync();
        using (store)
        using (connection)
        {
            await store.Documents.EnsureIndexAsync(new IndexDefinition("orders", "OrdersByEmail", "email").AsUnique());
            connection.Execute("BEGIN IMMEDIATE");
            connection.Execute("INSERT INTO t VALUES ('in tx')");
            connection.Execute("INSERT INTO orders(id, customer, email) VALUES ('orders/3', 'eve', 'eve@example.com')");

            // A session takes the value first and commits.
            await store.StoreRawAsync("orders", "orders/4", """{"customer":"mallory","email":"eve@example.com"}""");
            string before;
            using (var other = store.Open())
            {
                before = await SnapshotAsync(store, other);
            }

            var error = Assert.Throws<SqliteException>(() => connection.Execute("COMMIT"));
            var cause = Assert.IsType<UniqueConstraintException>(Voron.SqliteVfs.VoronSqlite.LastError);
            Assert.Equal(("OrdersByEmail", "orders/3"), (cause.Index, cause.Id));
            Assert.Contains("eve@example.com", error.Message + cause.Message, StringComparison.Ordinal);
            connection.RollbackIfOpen();
            Assert.Equal(before, await SnapshotAsync(store, connection));

            // The connection goes on.
            connection.Execute("INSERT INTO orders(id, customer, email) VALUES ('orders/3', 'eve', 'eve2@example.com')");
            Assert.Equal("eve", connection.Value("SELECT customer FROM orders WHERE email = 'eve2@example.com'"));
        }
    }

    [Fact]
    public async Task The_eponymous_table_is_read_only()
    {
        var (store, connection) = await NewStoreAsync();
        using (store)
        using (connection)
        {
            var before = await SnapshotAsync(store, connection);
            Fails(connection, "INSERT INTO voron_collection(id, body) VALUES ('orders/9', '{}')", 8, "voron_collection", "read-only"); // SQLITE_READONLY

            // Without its collection argument SQLite finds no plan for it at all (a table-valued
            // function cannot be the target of UPDATE or DELETE): refused before any write.
            foreach (var sql in new[] { "UPDATE voron_collection SET body = '{}' WHERE id = 'orders/1'", "DELETE FROM voron_collection WHERE id = 'orders/1'" })
            {
                Assert.Throws<SqliteException>(() => connection.Execute(sql));
            }

            Assert.Equal(before, await SnapshotAsync(store, connection));
            Assert.Equal(2L, connection.Value("SELECT count(*) FROM voron_collection('orders')"));
        }
    }

    [Fact]
    public async Task The_eponymous_table_with_an_invalid_collection_name_fails_naming_it()
    {
        var (store, connection) = await NewStoreAsync();
        using (store)
        using (connection)
        {
            Fails(connection, "SELECT * FROM voron_collection('a/b')", SqliteError, "a/b");
            Fails(connection, "SELECT * FROM voron_collection('')", SqliteError, "collection");
        }
    }

    /// <summary>
    /// Without a collection, xBestIndex answered SQLITE_CONSTRAINT, which tells SQLite "this plan is
    /// unusable, try another": SQLite then said only "no query solution" and the module's message
    /// was lost. A query that cannot name a collection now gets the module's message; a join that
    /// names it from another table still plans (SQLITE_CONSTRAINT for the order that cannot).
    /// </summary>
    [Theory]
    [InlineData("SELECT * FROM voron_collection")]
    [InlineData("SELECT id FROM voron_collection WHERE id = 'orders/1'")]
    [InlineData("SELECT id FROM voron_collection WHERE collection > 'a'")]
    public async Task The_eponymous_table_without_a_collection_says_how_to_name_one(string sql)
    {
        var (store, connection) = await NewStoreAsync();
        using (store)
        using (connection)
        {
            Fails(connection, sql, SqliteError, "voron_collection needs a collection", "voron_collection('");
            connection.Execute("CREATE TABLE names(c TEXT)");
            connection.Execute("INSERT INTO names VALUES ('orders')");
            Assert.Equal(2L, connection.Value("SELECT count(*) FROM names JOIN voron_collection v ON v.collection = names.c"));
            Assert.Equal(2L, connection.Value("SELECT count(*) FROM voron_collection v JOIN names ON v.collection = names.c"));
        }
    }

    [Fact]
    public async Task A_collection_without_documents_is_no_error_but_empty()
    {
        var (store, connection) = await NewStoreAsync();
        using (store)
        using (connection)
        {
            Assert.Empty(connection.Query("SELECT * FROM voron_collection('nothing_here')"));
            connection.Execute("CREATE VIRTUAL TABLE empty USING voron_docs(nothing_here, x='$.x')");
            Assert.Equal(0L, connection.Value("SELECT count(*) FROM empty"));
        }
    }
}
