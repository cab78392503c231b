namespace Voron.Tests.Documents.Changes;

/// <summary>CF4, CF5: retention prunes old changes, raises the oldest position, and a feed older than it gets a clear error.</summary>
public sealed class ChangeRetentionTests
{
    private static async Task SaveAsync(DocumentStore store, int from, int count)
    {
        for (var i = from; i < from + count; i++)
        {
            await using var session = store.OpenSession();
            session.StoreRaw("notes", $"notes/{i}", Encoding.UTF8.GetBytes($$"""{"n":{{i}}}"""));
            await session.SaveChangesAsync();
        }
    }

    [Fact]
    public async Task Pruning_removes_changes_older_than_retention_and_feeds_before_them_fail_clearly()
    {
        var clock = new ManualTimeProvider();
        await using var store = DocumentTestStore.InMemory(o =>
        {
            o.TimeProvider = clock;
            o.ChangeFeed.Retention = TimeSpan.FromHours(1);
        });
        await SaveAsync(store, 1, 5);
        Assert.Equal(0, await store.Feed.PruneAsync(CancellationToken.None)); // nothing is an hour old
        Assert.Equal(0, store.OldestChangePosition);

        clock.Advance(TimeSpan.FromHours(2));
        Assert.Equal(5, await store.Feed.PruneAsync(CancellationToken.None));
        Assert.Equal(5, store.OldestChangePosition);
        await SaveAsync(store, 6, 2); // written "now": kept

        var error = Assert.Throws<ChangeFeedPositionException>(() => store.Changes(4));
        Assert.Equal(4, error.Requested);
        Assert.Equal(5, error.Oldest);
        Assert.Contains("OldestChangePosition", error.Message);
        Assert.Contains("Retention", error.Message);

        var changes = await FeedReader.TakeAsync(store, store.OldestChangePosition, 2);
        Assert.Equal([6L, 7], changes.Select(c => c.Version));
        store.CheckIntegrity(); // L4: documents at or below feed.from need no entry
    }

    [Fact]
    public async Task Pruning_runs_in_bounded_steps_and_stops_at_the_lowest_subscription_position()
    {
        var clock = new ManualTimeProvider();
        await using var store = DocumentTestStore.InMemory(o => o.TimeProvider = clock);
        var users = Enumerable.Range(0, 3000).Select(i => DocumentTestStore.NewUser($"u{i}", i));
        await store.BulkInsertAsync(users, TestJson.Default.User);
        store.Feed.LowestSubscriptionPosition = _ => 2500;
        clock.Advance(TimeSpan.FromDays(8));
        var before = store.Environment.LastCommittedTransactionId;
        Assert.Equal(2500, await store.Feed.PruneAsync(CancellationToken.None));
        Assert.Equal(3, store.Environment.LastCommittedTransactionId - before); // 1,024 + 1,024 + 452
        Assert.Equal(2500, store.OldestChangePosition);

        store.Feed.LowestSubscriptionPosition = null;
        Assert.Equal(500, await store.Feed.PruneAsync(CancellationToken.None));
        Assert.Equal(3000, store.OldestChangePosition);
        store.CheckIntegrity();
    }

    [Fact]
    public async Task A_slow_consumer_that_retention_passes_gets_the_position_error_not_a_gap()
    {
        var clock = new ManualTimeProvider();
        await using var store = DocumentTestStore.InMemory(o => o.TimeProvider = clock);
        await SaveAsync(store, 1, 600); // more than one batch of the feed
        await using var feed = store.Changes(0).GetAsyncEnumerator();
        Assert.True(await feed.MoveNextAsync());
        clock.Advance(TimeSpan.FromDays(8));
        await store.Feed.PruneAsync(CancellationToken.None);
        var seen = 1;
        var error = await Assert.ThrowsAsync<ChangeFeedPositionException>(async () =>
        {
            while (await feed.MoveNextAsync())
            {
                seen++;
            }
        });
        Assert.Equal(512, seen); // the batch it held, then the error
        Assert.Equal(512, error.Requested);
        Assert.Equal(600, error.Oldest);
    }

    [Fact]
    public void Retention_must_be_positive()
    {
        var options = new DocumentStoreOptions { InMemory = true };
        options.ChangeFeed.Retention = TimeSpan.Zero;
        Assert.Throws<ArgumentException>(() => DocumentStore.Open(options));
    }
}
