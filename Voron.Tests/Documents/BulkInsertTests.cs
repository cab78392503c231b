namespace Voron.Tests.Documents;

public sealed class BulkInsertTests
{
    private static readonly TestJson Json = TestJson.Default;

    [Fact]
    public async Task BulkInsert_loads_documents_in_batches_with_their_index_entries()
    {
        await using var store = DocumentTestStore.InMemory(o => o.BulkInsertBatchSize = 700);
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
        var reports = new List<long>();
        var before = store.Environment.LastCommittedTransactionId;
        var written = await store.BulkInsertAsync(Enumerable.Range(0, 5000).Select(i => DocumentTestStore.NewUser($"u{i}", i % 100)), Json.User, new Progress(reports));
        Assert.Equal(5000, written);
        Assert.Equal(5000, reports[^1]);
        Assert.True(store.Environment.LastCommittedTransactionId - before >= 5000 / 700, "one transaction per batch at least");
        await using var session = store.OpenSession();
        Assert.Equal(50, await session.Query(Json.User).CountAsync(u => u.Age == 42));
        Assert.Equal("u4999", (await session.LoadAsync("User/5000", Json.User))!.Name);
        var report = store.CheckIntegrity();
        Assert.Equal(5000, report.Documents);
        Assert.Equal(5000, report.IndexEntries);
    }

    [Fact]
    public async Task BulkInsert_from_an_async_stream_replaces_existing_ids_and_keeps_the_last_duplicate()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(IndexDefinition.For(Json.Order, "orders_by_sku", o => o.Lines.Select(l => l.Sku)));
        static async IAsyncEnumerable<Order> Orders()
        {
            for (var i = 0; i < 300; i++)
            {
                await Task.Yield();
                yield return new Order { Id = $"orders/{i % 200}", Customer = $"c{i}", Lines = [new OrderLine { Sku = $"sku{i % 7}", Quantity = 1 }] };
            }
        }

        Assert.Equal(200, await store.BulkInsertAsync(Orders(), Json.Order)); // one batch: a repeated id is written once, the last one
        await using var session = store.OpenSession();
        Assert.Equal("c250", (await session.LoadAsync("orders/50", Json.Order))!.Customer);
        store.CheckIntegrity();
    }

    [Fact]
    public async Task A_failing_batch_keeps_the_batches_before_it()
    {
        await using var store = DocumentTestStore.InMemory(o => o.BulkInsertBatchSize = 100);
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_email", u => u.Email).AsUnique());
        var users = Enumerable.Range(0, 500).Select(i => DocumentTestStore.NewUser($"u{i}", 1, i == 250 ? "dup@x" : i == 260 ? "dup@x" : $"{i}@x")).ToList();
        await Assert.ThrowsAsync<UniqueConstraintException>(() => store.BulkInsertAsync(users, Json.User));
        Assert.Equal(200, store.CheckIntegrity().Documents);
    }

    [Fact]
    public async Task Large_documents_are_compressed_and_stream_back_byte_for_byte()
    {
        await using var store = DocumentTestStore.InMemory();
        var json = Encoding.UTF8.GetBytes("{\"items\":[" + string.Join(",", Enumerable.Range(0, 3000).Select(i => $"{{\"n\":{i},\"name\":\"item {i % 10}\"}}")) + "]}");
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("big", "big/1", json);
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            using var stream = new MemoryStream();
            var metadata = await session.LoadRawAsync("big/1", stream);
            Assert.Equal("big", metadata!.Collection);
            Assert.Equal(json, stream.ToArray());
            using var pooled = await session.LoadRawAsync("big/1");
            Assert.Equal(json, pooled!.Json.ToArray());
            Assert.Null(await session.LoadRawAsync("big/2"));
        }
    }

    private sealed class Progress(List<long> reports) : IProgress<long>
    {
        public void Report(long value) => reports.Add(value);
    }
}
