using Voron.Tests.Documents.Changes;

namespace Voron.Tests.Sql.Documents;

/// <summary>CF1: writes through SQL's voron_docs go through WriteBatch and appear in the change feed.</summary>
public sealed class VoronDocsChangeFeedTests
{
    [Fact]
    public async Task Inserts_updates_and_deletes_through_voron_docs_appear_in_the_feed()
    {
        using var store = new DocsStore();
        using var connection = store.Open();
        connection.Execute("CREATE VIRTUAL TABLE orders USING voron_docs(orders, customer='$.customer' TEXT)");
        connection.Execute("INSERT INTO orders(id, customer) VALUES ('orders/1', 'ada')");
        connection.Execute("INSERT INTO orders(id, customer) VALUES ('orders/2', 'bob')");
        connection.Execute("UPDATE orders SET customer = 'eve' WHERE id = 'orders/1'");
        connection.Execute("DELETE FROM orders WHERE id = 'orders/2'");

        var changes = await FeedReader.DrainAsync(store.Documents, 0, "orders");
        Assert.Equal(
            [("orders/1", DocumentChangeKind.Stored), ("orders/2", DocumentChangeKind.Stored), ("orders/1", DocumentChangeKind.Stored), ("orders/2", DocumentChangeKind.Deleted)],
            changes.Select(c => (c.Id, c.Kind)));
        Assert.Equal(changes.Select(c => c.Version).Order(), changes.Select(c => c.Version));
        Assert.Equal(4, changes.Select(c => c.Version).Distinct().Count());
        store.Documents.CheckIntegrity();
    }
}
