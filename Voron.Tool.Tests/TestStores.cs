using Microsoft.Data.Sqlite;
using Voron.Documents;
using Voron.SqliteVfs;

namespace Voron.Tool.Tests;

/// <summary>Stores the tool's tests run against, made through the public API and closed cleanly.</summary>
internal static class TestStores
{
    /// <summary>An empty store: created, one key-value tree with a few entries, closed.</summary>
    public static void CreateClean(string directory)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        using var write = environment.BeginWrite();
        var tree = write.CreateTree("kv");
        for (var i = 0; i < 10; i++)
        {
            tree.Put(System.Text.Encoding.UTF8.GetBytes($"key/{i:D3}"), System.Text.Encoding.UTF8.GetBytes($"value {i}"));
        }

        tree.Put("binary"u8, new byte[] { 0, 1, 2, 0xFF });
        write.Commit();
    }

    /// <summary>The number of "Order" documents <see cref="CreateWithDocumentsAndSqlAsync"/> stores.</summary>
    public const int Orders = 200;

    /// <summary>The number of "Customer" documents it stores.</summary>
    public const int Customers = 20;

    /// <summary>
    /// A store with documents (collections Order and Customer, an index Order/ByCustomer) and a
    /// SQLite database "shop" holding a table <c>invoices</c> (one row per order) and a
    /// <c>voron_docs</c> table <c>orders</c> over the Order collection.
    /// </summary>
    public static async Task CreateWithDocumentsAndSqlAsync(string directory)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        await using (var documents = DocumentStore.Open(environment))
        {
            await documents.EnsureIndexAsync(new IndexDefinition("Order", "ByCustomer", "$.customer"));
            await using (var session = documents.OpenSession())
            {
                for (var i = 0; i < Customers; i++)
                {
                    session.StoreRaw("Customer", $"customers/{i}", System.Text.Encoding.UTF8.GetBytes($$"""{"name":"Customer {{i}}","city":"City {{i % 3}}"}"""));
                }

                for (var i = 0; i < Orders; i++)
                {
                    session.StoreRaw("Order", $"orders/{i}", System.Text.Encoding.UTF8.GetBytes(
                        $$"""{"customer":"customers/{{i % Customers}}","total":{{i * 1.5}},"lines":[{"sku":"s{{i}}","qty":{{i % 7 + 1}}}],"note":"ünïcödé {{i}}"}"""));
                }

                await session.SaveChangesAsync();
            }

            var vfs = "tool-tests-" + Guid.NewGuid().ToString("N")[..8];
            using var sql = VoronSqlite.Register(environment, vfs).UseDocuments(documents);
            using var connection = new SqliteConnection($"Data Source=shop;Vfs={vfs};Pooling=False");
            connection.Open();
            using var command = connection.CreateCommand();
            command.CommandText = """
                CREATE VIRTUAL TABLE orders USING voron_docs(Order, customer='$.customer' TEXT, total='$.total' REAL);
                CREATE TABLE invoices(order_id TEXT PRIMARY KEY, amount REAL NOT NULL);
                INSERT INTO invoices SELECT id, total FROM orders;
                """;
            command.ExecuteNonQuery();
        }
    }
}
