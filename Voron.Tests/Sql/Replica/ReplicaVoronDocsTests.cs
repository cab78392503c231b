using Voron.SqliteVfs.Databases;
using Voron.Tests.Sql.Documents;

namespace Voron.Tests.Sql.Replica;

/// <summary>
/// voron_docs on a read replica (V18, SD1–SD8): SELECT reads the documents as the replica applied
/// them, through the id, an index and a scan; INSERT, UPDATE and DELETE are SQLITE_READONLY with the
/// reason in VoronSqlite.LastError, and the documents stay as they were.
/// </summary>
public sealed class ReplicaVoronDocsTests
{
    [Fact]
    public async Task Voron_docs_on_the_replica_reads_the_applied_documents_and_refuses_every_change()
    {
        using var sql = new ReplicatedSql();
        using var primaryDocuments = DocumentStore.Open(sql.Primary);
        await primaryDocuments.EnsureIndexAsync(new IndexDefinition("Order", "ByCustomer", "$.customer"));
        sql.PrimarySql.UseDocuments(primaryDocuments);
        sql.OnPrimary("shop", "CREATE VIRTUAL TABLE orders USING voron_docs(Order, customer='$.customer' TEXT, total='$.total' REAL)", "INSERT INTO orders(id, customer, total) VALUES ('orders/1', 'Ada', 12.5), ('orders/2', 'Grace', 7)");

        await sql.StartReplicaAsync();
        using var replicaDocuments = DocumentStore.Open(sql.Replica);
        sql.ReplicaSql.UseDocuments(replicaDocuments);

        await using (var session = primaryDocuments.OpenSession())
        {
            session.StoreRaw("Order", "orders/3", """{"customer":"Ada","total":30}"""u8.ToArray());
            await session.SaveChangesAsync();
        }

        sql.OnPrimary("shop", "UPDATE orders SET total = 13 WHERE id = 'orders/1'");

        await sql.CatchUpAsync();
        var expected = sql.PrimaryRows("shop", "SELECT id, customer, total, version, last_modified FROM orders ORDER BY id");

        Assert.Equal(3, expected.Count);
        using var replica = sql.OpenReplica("shop");
        Assert.Equal(expected, replica.Rows("SELECT id, customer, total, version, last_modified FROM orders ORDER BY id"));
        Assert.Equal(expected.Where(r => (string)r[1]! == "Ada").Select(r => r[0]), replica.Rows("SELECT id FROM orders WHERE customer = 'Ada' ORDER BY id").Select(r => r[0]));
        Assert.Equal(13.0, replica.Scalar<double>("SELECT total FROM orders WHERE id = 'orders/1'"));
        Assert.Equal(3L, replica.Scalar<long>("SELECT count(*) FROM voron_collection('Order')"));

        string[] writes =
        [
            "INSERT INTO orders(id, customer, total) VALUES ('orders/9', 'Linus', 1)",
            "UPDATE orders SET total = 0",
            "DELETE FROM orders WHERE id = 'orders/2'",
            "INSERT OR REPLACE INTO orders(id, customer) VALUES ('orders/1', 'Nobody')",
        ];
        foreach (var write in writes)
        {
            var refused = Assert.Throws<SqliteException>(() => replica.Execute(write));
            Assert.True(refused.SqliteErrorCode == 8, $"{write}: {refused.SqliteErrorCode} {refused.Message}"); // SQLITE_READONLY
            var reason = Assert.IsType<ReadReplicaException>(VoronSqlite.LastError);
            Assert.Contains("write to the primary", reason.Message, StringComparison.Ordinal);
            replica.RollbackIfOpen();
        }

        Assert.Equal(expected, replica.Rows("SELECT id, customer, total, version, last_modified FROM orders ORDER BY id"));
        await using (var session = replicaDocuments.OpenSession())
        {
            using var stored = await session.LoadRawAsync("orders/2");
            Assert.NotNull(stored);
            Assert.Null(await session.LoadRawAsync("orders/9"));
        }
    }
}
