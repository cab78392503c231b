namespace Voron.Tests.Documents;

public sealed class DocumentStatisticsTests
{
    private static readonly TestJson Json = TestJson.Default;

    /// <summary>The record bytes per id prefix, read straight from the "@docs" tree (not through the collections' member lists).</summary>
    private static long RecordBytes(DocumentStore store, string idPrefix)
    {
        using var read = store.Environment.BeginRead();
        var iterator = read.OpenTree("@docs")!.Iterate();
        long bytes = 0;
        for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
        {
            if (Encoding.UTF8.GetString(iterator.Key).StartsWith(idPrefix, StringComparison.Ordinal))
            {
                bytes += iterator.Value.Length;
            }
        }

        return bytes;
    }

    private static long IndexKeyBytes(DocumentStore store, string treeName)
    {
        using var read = store.Environment.BeginRead();
        var iterator = read.OpenTree(treeName)!.Iterate();
        long bytes = 0;
        for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
        {
            Assert.Equal(0, iterator.Value.Length); // index entries are keys only (Storage/DocumentTrees.cs)
            bytes += iterator.Key.Length;
        }

        return bytes;
    }

    [Fact]
    public async Task GetStatistics_counts_documents_bytes_and_index_entries_as_stored()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
        await store.EnsureIndexAsync(IndexDefinition.For(Json.Order, "orders_by_sku", o => o.Lines.Select(l => l.Sku)));
        await using (var session = store.OpenSession())
        {
            for (var i = 0; i < 120; i++)
            {
                session.Store(DocumentTestStore.NewUser($"user{i}", i % 50, $"u{i}@example.com", "a", "b"), Json.User, $"u/{i:D4}");
            }

            for (var i = 0; i < 30; i++)
            {
                var order = new Order { Customer = $"u/{i:D4}", Total = i, Lines = [new() { Sku = $"sku-{i}", Quantity = 1 }, new() { Sku = "common", Quantity = 2 }] };
                session.Store(order, Json.Order, $"o/{i:D4}");
            }

            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            for (var i = 0; i < 20; i++)
            {
                session.Delete($"u/{i:D4}");
            }

            await session.SaveChangesAsync();
        }

        var statistics = store.GetStatistics();

        Assert.Equal(["User", "orders"], statistics.Collections.Select(c => c.Name));
        var users = statistics.Collections[0];
        var orders = statistics.Collections[1];
        Assert.Equal(100, users.Documents);
        Assert.Equal(30, orders.Documents);
        Assert.Equal(RecordBytes(store, "u/"), users.Bytes);
        Assert.Equal(RecordBytes(store, "o/"), orders.Bytes);
        Assert.True(users.Bytes > 100 * "{\"name\":\"user0\"}".Length, users.ToString());

        var byAge = Assert.Single(statistics.Indexes, i => i.Name == "users_by_age");
        var bySku = Assert.Single(statistics.Indexes, i => i.Name == "orders_by_sku");
        Assert.Equal(("User", 100L), (byAge.Collection, byAge.Entries)); // one age per user
        Assert.Equal(("orders", 60L), (bySku.Collection, bySku.Entries)); // two distinct SKUs per order
        Assert.Equal(IndexKeyBytes(store, "@docs.idx/User/users_by_age"), byAge.Bytes);
        Assert.Equal(IndexKeyBytes(store, "@docs.idx/orders/orders_by_sku"), bySku.Bytes);
        Assert.True(byAge.Bytes > 100 * "u/0000".Length, byAge.ToString()); // every key ends with the document's id

        // The engine's part: the same snapshot here (nothing committed between), with the document trees in it.
        Assert.Equal(statistics.TransactionId, statistics.Engine.TransactionId);
        Assert.Equal(100, Assert.Single(statistics.Engine.Trees, t => t.Name == "@docs.col/User").Entries);
        Assert.Equal(130, Assert.Single(statistics.Engine.Trees, t => t.Name == "@docs").Entries);
    }

    [Fact]
    public async Task GetStatistics_of_an_empty_store_lists_defined_indexes_with_no_entries()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));

        var statistics = store.GetStatistics();

        Assert.Empty(statistics.Collections);
        var index = Assert.Single(statistics.Indexes);
        Assert.Equal(new IndexStatistics("User", "users_by_age", 0, 0), index);
    }
}
