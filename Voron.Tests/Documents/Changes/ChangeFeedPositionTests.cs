using Voron.Documents.Subscriptions;

namespace Voron.Tests.Documents.Changes;

/// <summary>CF8: where a feed or a subscription may start — 0 is the oldest retained change, below it was pruned, above the last version is ahead of the store.</summary>
public sealed class ChangeFeedPositionTests
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

    private static async Task<(DocumentStore Store, ManualTimeProvider Clock)> PrunedStoreAsync()
    {
        var clock = new ManualTimeProvider();
        var store = DocumentTestStore.InMemory(o =>
        {
            o.TimeProvider = clock;
            o.ChangeFeed.Retention = TimeSpan.FromHours(1);
        });
        await SaveAsync(store, 1, 5);
        clock.Advance(TimeSpan.FromHours(2));
        Assert.Equal(5, await store.Feed.PruneAsync(CancellationToken.None));
        await SaveAsync(store, 6, 2); // versions 6 and 7, kept
        return (store, clock);
    }

    [Fact]
    public async Task A_position_ahead_of_the_store_is_refused_with_a_clear_error()
    {
        await using var store = DocumentTestStore.InMemory();
        await SaveAsync(store, 1, 3);

        var error = Assert.Throws<ChangeFeedPositionException>(() => store.Changes(4));
        Assert.Equal(4, error.Requested);
        Assert.Equal(0, error.Oldest);
        Assert.Contains("ahead of the store", error.Message, StringComparison.Ordinal);
        Assert.Contains("backup", error.Message, StringComparison.Ordinal);

        await SaveAsync(store, 4, 1);
        Assert.Equal([4L], (await FeedReader.TakeAsync(store, 3, 1)).Select(c => c.Version)); // the last version itself is accepted
    }

    [Fact]
    public async Task Zero_starts_at_the_oldest_retained_change_and_a_pruned_position_still_throws()
    {
        var (store, _) = await PrunedStoreAsync();
        await using var owned = store;
        Assert.Equal(5, store.OldestChangePosition);

        Assert.Equal([6L, 7], (await FeedReader.TakeAsync(store, 0, 2)).Select(c => c.Version));
        Assert.Equal(4, Assert.Throws<ChangeFeedPositionException>(() => store.Changes(4)).Requested);
    }

    [Fact]
    public async Task A_subscription_created_at_zero_starts_at_the_oldest_retained_change()
    {
        var (store, _) = await PrunedStoreAsync();
        await using var owned = store;

        await store.Subscriptions.CreateAsync("all");
        Assert.Equal(5, (await store.Subscriptions.GetAsync("all"))!.Position);
        await using var worker = await store.Subscriptions.OpenAsync("all");
        var batch = await worker.NextBatchGuardedAsync();
        Assert.Equal([6L, 7], batch.Changes.Select(c => c.Version));
        await Assert.ThrowsAsync<ChangeFeedPositionException>(() => store.Subscriptions.CreateAsync("late", since: 4));
    }

    [Fact]
    public async Task A_subscription_ahead_of_the_store_fails_clearly()
    {
        await using var store = DocumentTestStore.InMemory();
        await SaveAsync(store, 1, 3);
        await store.Subscriptions.CreateAsync("all", since: 3);
        await using var worker = await store.Subscriptions.OpenAsync("all");
        // As after restoring a backup older than the acknowledgement: the stored position is above "version".
        await store.Environment.ExecuteAsync(tx =>
        {
            var record = SubscriptionTable.Find(tx, "all"u8, store.Path)!.Value;
            tx.CreateTree(SubscriptionRecord.Tree).Put("all"u8, SubscriptionRecord.Encode(9, record.Incarnation, []));
        });

        var error = await Assert.ThrowsAsync<ChangeFeedPositionException>(() => worker.NextBatchGuardedAsync());
        Assert.Equal(9, error.Requested);
        Assert.Contains("ahead of the store", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_worker_of_a_deleted_subscription_does_not_take_over_one_created_again_at_the_same_instant()
    {
        var clock = new ManualTimeProvider(); // stands still: both creates see the same ticks
        await using var store = DocumentTestStore.InMemory(o => o.TimeProvider = clock);
        await SaveAsync(store, 1, 2);
        await store.Subscriptions.CreateAsync("s");
        await using var old = await store.Subscriptions.OpenAsync("s");
        var batch = await old.NextBatchGuardedAsync();

        Assert.True(await store.Subscriptions.DeleteAsync("s"));
        await store.Subscriptions.CreateAsync("s");

        await Assert.ThrowsAsync<SubscriptionNotFoundException>(() => old.AcknowledgeAsync(batch));
        await Assert.ThrowsAsync<SubscriptionNotFoundException>(() => old.NextBatchGuardedAsync());
        Assert.Equal(0, (await store.Subscriptions.GetAsync("s"))!.Position);
    }
}
