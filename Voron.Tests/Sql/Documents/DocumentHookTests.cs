using Microsoft.Data.Sqlite;
using Voron.Documents;
using Voron.SqliteVfs.Databases;
using Voron.SqliteVfs.Interop.VirtualTables;
using Xunit.Abstractions;

namespace Voron.Tests.Sql.Documents;

/// <summary>
/// DH2: the document half of a commit is prepared inside the commit's try/finally, so a COMMIT
/// whose documents cannot be prepared (a record that cannot be built) fails with why and the
/// write lock goes to the next writer at once. The expiration field holding a number is such a
/// document: voron_docs accepts it at INSERT, the record build refuses it at COMMIT.
/// </summary>
public sealed class DocumentHookTests(ITestOutputHelper output)
{
    private const string Expiring = """{"expires":5}"""; // a number: the record build refuses it (ExpirationOptions.JsonField)

    private static DocsStore NewStore() =>
        new(options: new DocumentStoreOptions { Expiration = { Enabled = false, JsonField = "expires" } });

    private static void CreateTables(SqliteConnection connection)
    {
        connection.Execute("CREATE VIRTUAL TABLE IF NOT EXISTS orders USING voron_docs(Order)");
        connection.Execute("CREATE TABLE IF NOT EXISTS pages(a)");
    }

    /// <summary>A connection that never waits for the write lock: SQLITE_BUSY at once when another holds it.</summary>
    private static SqliteConnection OpenImpatient(DocsStore store)
    {
        var connection = store.Open();
        connection.DefaultTimeout = 0;
        connection.Execute("PRAGMA busy_timeout=0");
        return connection;
    }

    private static IEnumerable<Exception> Chain(Exception? error)
    {
        for (var e = error; e != null; e = e.InnerException)
        {
            yield return e;
        }
    }

    [Fact]
    public void DH2_a_commit_whose_documents_cannot_be_prepared_releases_the_write_lock_before_SQLite_unlocks()
    {
        // SQLite unlocks right after a failed commit (pager_end_transaction), which hides a lock
        // the commit itself kept; so this commits the file directly and looks before it does.
        using var store = NewStore();
        using var failing = store.Open();
        using var other = OpenImpatient(store);
        CreateTables(failing);
        failing.Execute("BEGIN IMMEDIATE");
        failing.Execute($"INSERT INTO orders(id, body) VALUES ('orders/1', '{Expiring}')");
        var file = (DatabaseFile)VirtualTableRegistry.VoronFileOf(failing.Handle!.DangerousGetHandle(), "main")!;
        Assert.True(file.IsWriter);

        Assert.Throws<InvalidJsonException>(file.Commit);

        Assert.False(file.IsWriter);
        Assert.Null(file.DocumentChanges);
        Assert.Equal(1, other.Execute("INSERT INTO pages VALUES (1)")); // SQLITE_BUSY here when the failed commit kept the write lock
        failing.RollbackIfOpen();
        Assert.Empty(other.Rows("SELECT id FROM orders"));
    }

    [Fact]
    public void DH2_a_COMMIT_whose_documents_cannot_be_prepared_fails_with_why_and_another_connection_writes_at_once()
    {
        using var store = NewStore();
        using var failing = store.Open();
        using var other = OpenImpatient(store);
        CreateTables(failing);

        var error = Assert.Throws<SqliteException>(() => failing.Execute($"INSERT INTO orders(id, body) VALUES ('orders/1', '{Expiring}')"));
        Assert.Contains(Chain(VoronSqlite.LastError), e => e is InvalidJsonException); // why the COMMIT failed
        output.WriteLine(error.Message);

        Assert.Equal(1, other.Execute("INSERT INTO pages VALUES (1)"));
        Assert.Equal(1, other.Execute("INSERT INTO orders(id, body) VALUES ('orders/2', '{\"total\":2}')"));
        Assert.Equal(1, failing.Execute("INSERT INTO pages VALUES (2)"));
        Assert.Equal(["orders/2"], other.Rows("SELECT id FROM orders").Select(r => (string)r[0]!));
        Assert.Equal(2L, other.Scalar<long>("SELECT count(*) FROM pages"));
    }

    [Fact]
    public void Random_transactions_where_some_documents_cannot_be_prepared_never_leave_the_write_lock_held()
    {
        var seed = TestSeed.Next(output, nameof(Random_transactions_where_some_documents_cannot_be_prepared_never_leave_the_write_lock_held));
        var random = new Random(seed);
        using var store = NewStore();
        SqliteConnection[] connections = [OpenImpatient(store), OpenImpatient(store)];
        try
        {
            CreateTables(connections[0]);
            var documents = new SortedDictionary<string, string>(StringComparer.Ordinal);
            var rows = 0L;
            for (var step = 0; step < 40; step++)
            {
                var connection = connections[random.Next(connections.Length)];
                var changes = new List<(string Id, string Json)>();
                for (var i = random.Next(1, 4); i > 0; i--)
                {
                    var id = $"orders/{random.Next(6)}";
                    changes.Add((id, random.Next(4) == 0 ? Expiring : $"{{\"total\":{step}}}"));
                }

                var addsRow = random.Next(2) == 0;
                var last = changes.GroupBy(c => c.Id).Select(g => g.Last()).ToList(); // a later write of an id replaces the earlier in the transaction
                var fails = last.Any(c => c.Json == Expiring);
                connection.Execute("BEGIN IMMEDIATE"); // SQLITE_BUSY at once when a failed commit kept the write lock
                foreach (var (id, json) in changes)
                {
                    connection.Execute("INSERT OR REPLACE INTO orders(id, body) VALUES ($id, $json)", ("$id", id), ("$json", json));
                }

                if (addsRow)
                {
                    connection.Execute("INSERT INTO pages VALUES ($step)", ("$step", step));
                }

                if (fails)
                {
                    Assert.Throws<SqliteException>(() => connection.Execute("COMMIT"));
                    connection.RollbackIfOpen();
                }
                else
                {
                    connection.Execute("COMMIT");
                    last.ForEach(c => documents[c.Id] = c.Json);
                    rows += addsRow ? 1 : 0;
                }

                var reader = connections[random.Next(connections.Length)];
                Assert.Equal(documents.Keys, reader.Rows("SELECT id FROM orders ORDER BY id").Select(r => (string)r[0]!));
                Assert.Equal(rows, reader.Scalar<long>("SELECT count(*) FROM pages"));
            }
        }
        finally
        {
            Array.ForEach(connections, c => c.Dispose());
        }
    }
}
