namespace Voron.Tests.Documents.Changes;

/// <summary>The change feed's basic promises: history then live, deletes with versions, filters, JSON, errors.</summary>
public sealed class ChangeFeedTests
{
    private static readonly TestJson Json = TestJson.Default;

    private static async Task SaveRawAsync(DocumentStore store, string collection, string id, string json)
    {
        await using var session = store.OpenSession();
        session.StoreRaw(collection, id, Encoding.UTF8.GetBytes(json));
        await session.SaveChangesAsync();
    }

    private static async Task DeleteAsync(DocumentStore store, string id)
    {
        await using var session = store.OpenSession();
        session.Delete(id);
        await session.SaveChangesAsync();
    }

    [Fact]
    public async Task The_feed_yields_history_then_live_commits_and_deletes_take_versions()
    {
        await using var store = DocumentTestStore.InMemory();
        await SaveRawAsync(store, "notes", "notes/1", """{"n":1}""");
        await SaveRawAsync(store, "notes", "notes/2", """{"n":2}""");
        await SaveRawAsync(store, "notes", "notes/1", """{"n":3}""");
        await DeleteAsync(store, "notes/2");

        var live = FeedReader.TakeAsync(store, 0, 6);
        await SaveRawAsync(store, "tasks", "tasks/1", """{"t":1}""");
        await DeleteAsync(store, "tasks/1");
        var changes = await live;

        Assert.Equal([1L, 2, 3, 4, 5, 6], changes.Select(c => c.Version));
        Assert.Equal(["notes/1", "notes/2", "notes/1", "notes/2", "tasks/1", "tasks/1"], changes.Select(c => c.Id));
        Assert.Equal(
            [DocumentChangeKind.Stored, DocumentChangeKind.Stored, DocumentChangeKind.Stored, DocumentChangeKind.Deleted, DocumentChangeKind.Stored, DocumentChangeKind.Deleted],
            changes.Select(c => c.Kind));
        Assert.Equal(["notes", "notes", "notes", "notes", "tasks", "tasks"], changes.Select(c => c.Collection));
        Assert.All(changes, c => Assert.Null(c.Json));
        store.CheckIntegrity();
    }

    [Fact]
    public async Task A_delete_of_a_missing_document_logs_nothing_and_takes_no_version()
    {
        await using var store = DocumentTestStore.InMemory();
        await DeleteAsync(store, "nobody");
        await SaveRawAsync(store, "notes", "notes/1", "{}");
        var changes = await FeedReader.DrainAsync(store, 0);
        Assert.Equal(1, Assert.Single(changes).Version);
    }

    [Fact]
    public async Task A_feed_starts_after_its_position_and_filters_by_collection()
    {
        await using var store = DocumentTestStore.InMemory();
        for (var i = 1; i <= 10; i++)
        {
            await SaveRawAsync(store, i % 2 == 0 ? "even" : "odd", $"d/{i}", "{}");
        }

        var after4 = await FeedReader.TakeAsync(store, 4, 6);
        Assert.Equal([5L, 6, 7, 8, 9, 10], after4.Select(c => c.Version));
        var even = await FeedReader.TakeAsync(store, 3, 4, "even");
        Assert.Equal([4L, 6, 8, 10], even.Select(c => c.Version));
        Assert.All(even, c => Assert.Equal("even", c.Collection));
    }

    [Fact]
    public async Task Json_is_returned_only_for_the_version_the_document_still_holds()
    {
        await using var store = DocumentTestStore.InMemory(o => o.CompressionThresholdBytes = 1024);
        var big = "{\"text\":\"" + new string('x', 4000) + "\"}";
        await SaveRawAsync(store, "notes", "notes/1", """{"v":1}""");
        await SaveRawAsync(store, "notes", "notes/1", big); // compressed record
        await SaveRawAsync(store, "notes", "notes/2", """{"v":3}""");
        await DeleteAsync(store, "notes/2");

        var changes = await FeedReader.TakeAsync(store, 0, 4, includeJson: true);
        Assert.Null(changes[0].Json); // replaced by version 2
        Assert.Equal(big, Encoding.UTF8.GetString(changes[1].Json!.Value.Span));
        Assert.Null(changes[2].Json); // deleted since
        Assert.Null(changes[3].Json); // a delete
    }

    [Fact]
    public async Task Bulk_inserts_appear_in_the_feed_in_version_order()
    {
        await using var store = DocumentTestStore.InMemory(o => o.BulkInsertBatchSize = 70);
        var users = Enumerable.Range(0, 200).Select(i => DocumentTestStore.NewUser($"u{i}", i)).ToList();
        Assert.Equal(200, await store.BulkInsertAsync(users, Json.User));
        var changes = await FeedReader.TakeAsync(store, 0, 200);
        Assert.Equal(Enumerable.Range(1, 200).Select(i => (long)i), changes.Select(c => c.Version));
        Assert.All(changes, c => Assert.Equal(DocumentChangeKind.Stored, c.Kind));
        Assert.Equal(200, changes.Select(c => c.Id).Distinct().Count());
        store.CheckIntegrity();
    }

    [Fact]
    public async Task A_negative_since_is_refused()
    {
        await using var store = DocumentTestStore.InMemory();
        Assert.Throws<ArgumentOutOfRangeException>(() => store.Changes(-1));
    }

    [Fact]
    public async Task A_store_with_the_feed_off_logs_nothing_and_refuses_feeds()
    {
        await using var store = DocumentTestStore.InMemory(o => o.ChangeFeed.Enabled = false);
        await SaveRawAsync(store, "notes", "notes/1", "{}");
        var error = Assert.Throws<InvalidOperationException>(() => store.Changes());
        Assert.Contains("ChangeFeed.Enabled", error.Message);
        using var read = store.Environment.BeginRead();
        Assert.Null(read.OpenTree("@docs.changes")?.Count is > 0 ? "entries" : null);
        store.CheckIntegrity();
    }

    [Fact]
    public async Task Turning_the_feed_on_again_starts_it_after_the_changes_made_while_off()
    {
        var path = Path.Combine(Path.GetTempPath(), "voron-feed-" + Guid.NewGuid().ToString("N"));
        try
        {
            await using (var store = DocumentTestStore.InDirectory(path))
            {
                await SaveRawAsync(store, "notes", "notes/1", "{}");
            }

            await using (var store = DocumentTestStore.InDirectory(path, o => o.ChangeFeed.Enabled = false))
            {
                await SaveRawAsync(store, "notes", "notes/2", "{}");
                await DeleteAsync(store, "notes/1");
            }

            await using (var store = DocumentTestStore.InDirectory(path))
            {
                Assert.Equal(3, store.OldestChangePosition);
                var error = Assert.Throws<ChangeFeedPositionException>(() => store.Changes(2));
                Assert.Equal(2, error.Requested);
                Assert.Equal(3, error.Oldest);
                await SaveRawAsync(store, "notes", "notes/3", "{}");
                var changes = await FeedReader.DrainAsync(store, 0); // CF8: 0 is the oldest retained position, 3
                Assert.Equal(4, Assert.Single(changes).Version);
                store.CheckIntegrity();
            }
        }
        finally
        {
            Directory.Delete(path, recursive: true);
        }
    }

    [Fact]
    public async Task A_disposed_store_refuses_feeds_and_ends_a_live_one()
    {
        var store = DocumentTestStore.InMemory();
        await SaveRawAsync(store, "notes", "notes/1", "{}");
        var feed = store.Changes(0).GetAsyncEnumerator();
        Assert.True(await feed.MoveNextAsync());
        var waiting = feed.MoveNextAsync().AsTask();
        Assert.False(waiting.IsCompleted);
        store.Dispose();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => waiting.WaitAsync(FeedReader.HangGuard));
        await feed.DisposeAsync();
        Assert.Throws<ObjectDisposedException>(() => store.Changes(0));
    }

    [Fact]
    public async Task A_store_over_an_environment_it_does_not_own_ends_a_live_feed_at_its_disposal()
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        var store = DocumentStore.Open(environment);
        var feed = store.Changes(0).GetAsyncEnumerator();
        var waiting = feed.MoveNextAsync().AsTask();
        store.Dispose();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => waiting.WaitAsync(FeedReader.HangGuard));
        await feed.DisposeAsync();
    }

    [Fact]
    public async Task Cancellation_ends_a_live_feed_with_OperationCanceledException()
    {
        await using var store = DocumentTestStore.InMemory();
        await SaveRawAsync(store, "notes", "notes/1", "{}");
        using var cancel = new CancellationTokenSource();
        var feed = store.Changes(0, cancellationToken: cancel.Token).GetAsyncEnumerator(CancellationToken.None);
        Assert.True(await feed.MoveNextAsync());
        var waiting = feed.MoveNextAsync().AsTask();
        Assert.False(waiting.IsCompleted);
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.WaitAsync(FeedReader.HangGuard));
        await feed.DisposeAsync();
    }
}
