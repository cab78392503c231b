using System.Text;
using Voron.SqliteVfs;
using Voron.Testing;
using Voron.Tests.Documents;

namespace Voron.Tests.Sql.Documents;

/// <summary>
/// Both front doors over one encrypted store: documents with an index and the change feed through
/// sessions, and the same documents through SQL (voron_docs) — every read answers as on a plain
/// store, and no marker written through either door is found in any file of the store afterwards
/// (a plain store, the control, shows them).
/// </summary>
public sealed class EncryptedDocumentDoorsTests
{
    private const string CreateOrders = "CREATE VIRTUAL TABLE orders USING voron_docs(orders, customer='$.customer' TEXT, total='$.total' REAL, lines='$.lines')";

    private static readonly byte[] Key = Voron.Tests.Core.Sealing.SealingFixtures.Key(83);

    [Fact]
    public async Task Sessions_indexes_the_change_feed_and_voron_docs_work_on_an_encrypted_store_and_leave_no_plaintext()
    {
        using var sealedDirectory = new TempDirectory();
        using var plainDirectory = new TempDirectory();
        foreach (var (path, key) in new[] { (sealedDirectory.Path, Key), (plainDirectory.Path, (byte[]?)null) })
        {
            await WriteThroughBothDoorsAsync(path, key);
        }

        Assert.NotEmpty(Scan(plainDirectory.Path)); // the control: plaintext is found where it is
        Assert.Empty(Scan(sealedDirectory.Path));

        // Reopened with its key, after a crash: every door reads what was written.
        var options = StorageEnvironmentOptions.ForDirectory(sealedDirectory.Path);
        options.EncryptionKey = Key;
        using var env = StorageEnvironment.Open(options);
        using var documents = DocumentStore.Open(env);
        await using (var session = documents.OpenSession())
        {
            var byCustomer = await session.Query(TestJson.Default.Order).Where(o => o.Customer == "DOC-MARKER-CUSTOMER-07").ToListAsync();
            Assert.Single(byCustomer);
            var sqlWritten = await session.LoadAsync("orders/sql-3", TestJson.Default.Order);
            Assert.Equal("SQL-MARKER-CUSTOMER-3", sqlWritten!.Customer);
        }

        var changes = new List<DocumentChange>();
        await foreach (var change in documents.Changes(includeJson: true))
        {
            changes.Add(change);
            if (changes.Count == 25)
            {
                break;
            }
        }

        Assert.Equal(25, changes.Count);
        Assert.Contains(changes, c => c.Json is { } json && Encoding.UTF8.GetString(json.Span).Contains("DOC-MARKER-CUSTOMER-", StringComparison.Ordinal));
    }

    private static async Task WriteThroughBothDoorsAsync(string directory, byte[]? key)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.EncryptionKey = key;
        options.JournalCompression = false; // the control's markers stay visible in its journal too
        var env = StorageEnvironment.Open(options);
        try
        {
            using var documents = DocumentStore.Open(env);
            await documents.EnsureIndexAsync(IndexDefinition.For(TestJson.Default.Order, "orders_by_customer", o => o.Customer));
            await using (var session = documents.OpenSession())
            {
                for (var i = 0; i < 20; i++)
                {
                    session.Store(new Order { Customer = $"DOC-MARKER-CUSTOMER-{i:D2}", Total = i, Lines = [new OrderLine { Sku = $"DOC-MARKER-SKU-{i:D2}", Quantity = 1 }] },
                        TestJson.Default.Order, $"orders/doc-{i}");
                }

                await session.SaveChangesAsync();
            }

            using (var sql = VoronSqlite.Register(env, "voron-enc-docs-" + Guid.NewGuid().ToString("N")[..12]))
            {
                sql.UseDocuments(documents);
                using var connection = new Microsoft.Data.Sqlite.SqliteConnection(
                    new Microsoft.Data.Sqlite.SqliteConnectionStringBuilder { DataSource = "db", Vfs = sql.VfsName, Pooling = false }.ToString());
                connection.Open();
                connection.Execute(CreateOrders);
                for (var i = 0; i < 5; i++)
                {
                    connection.Execute($"INSERT INTO orders(id, customer, total) VALUES ('orders/sql-{i}', 'SQL-MARKER-CUSTOMER-{i}', {i})");
                }

                Assert.Equal(25L, connection.Value("SELECT count(*) FROM orders"));
                Assert.Equal("DOC-MARKER-CUSTOMER-07", connection.Value("SELECT customer FROM orders WHERE id = 'orders/doc-7'"));
            }

            env.FlushToDataFile();
        }
        finally
        {
            env.CloseWithoutFlush();
        }
    }

    private static List<string> Scan(string directory)
    {
        var markers = new[] { "DOC-MARKER-CUSTOMER-", "DOC-MARKER-SKU-", "SQL-MARKER-CUSTOMER-" }.Select(Encoding.UTF8.GetBytes).ToArray();
        return [.. Directory.GetFiles(directory, "*", SearchOption.AllDirectories)
            .Where(f => markers.Any(m => File.ReadAllBytes(f).AsSpan().IndexOf(m) >= 0))];
    }
}
