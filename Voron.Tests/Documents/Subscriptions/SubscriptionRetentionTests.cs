using Voron.Tests.Documents.Changes;

namespace Voron.Tests.Documents.Subscriptions;

/// <summary>SU3: pruning never passes the lowest subscription position; a position older than the log is a clear error.</summary>
public sealed class SubscriptionRetentionTests
{
    // The clock is moved by hand, so the store's background pruning never runs: with the real
    // clock and a retention of one tick it could prune every change between the saves and the
    // first CreateAsync on a busy machine, leaving the subscriptions nothing to read.
    private static DocumentStore ShortRetention(ManualTimeProvider clock) => DocumentTestStore.InMemory(o =>
    {
        o.TimeProvider = clock;
        o.ChangeFeed.Retention = TimeSpan.FromTicks(1);
    });

    [Fact]
    public async Task Pruning_stops_at_the_lowest_subscription_position()
    {
        var clock = new ManualTimeProvider();
        await using var store = ShortRetention(clock);
        var versions = await SubscriptionTestData.SaveUsersAsync(store, 6);
        await store.Subscriptions.CreateAsync("slow");
        await store.Subscriptions.CreateAsync("fast");
        await using (var fast = await store.Subscriptions.OpenAsync("fast", new SubscriptionWorkerOptions { MaxBatchSize = 4 }))
        {
            await fast.AcknowledgeAsync(await fast.NextBatchGuardedAsync());
        }

        await using (var slow = await store.Subscriptions.OpenAsync("slow", new SubscriptionWorkerOptions { MaxBatchSize = 2 }))
        {
            await slow.AcknowledgeAsync(await slow.NextBatchGuardedAsync());
        }

        clock.Advance(TimeSpan.FromSeconds(1)); // every change is now older than the retention
        await store.Feed.PruneAsync(CancellationToken.None);
        Assert.Equal(versions[1], store.OldestChangePosition); // the slow one's position, not beyond

        await using (var slow = await store.Subscriptions.OpenAsync("slow"))
        {
            Assert.Equal(versions.Skip(2), (await slow.NextBatchGuardedAsync()).Changes.Select(c => c.Version)); // nothing it has not acknowledged was pruned
        }

        Assert.True(await store.Subscriptions.DeleteAsync("slow"));
        await store.Feed.PruneAsync(CancellationToken.None);
        Assert.Equal(versions[3], store.OldestChangePosition); // now the fast one holds it

        Assert.True(await store.Subscriptions.DeleteAsync("fast"));
        await store.Feed.PruneAsync(CancellationToken.None);
        Assert.Equal(versions[^1], store.OldestChangePosition);
        var old = await Assert.ThrowsAsync<ChangeFeedPositionException>(() => store.Subscriptions.CreateAsync("late", since: versions[2]));
        Assert.Equal(versions[^1], old.Oldest);
        await store.Subscriptions.CreateAsync("late", since: versions[^1]);
    }

    [Fact]
    public async Task A_position_older_than_the_log_fails_NextBatchAsync_clearly()
    {
        var path = Path.Combine(Path.GetTempPath(), "voron-subs-" + Guid.NewGuid().ToString("N"));
        try
        {
            await using (var store = DocumentTestStore.InDirectory(path))
            {
                await SubscriptionTestData.SaveUsersAsync(store, 2);
                await store.Subscriptions.CreateAsync("s");
            }

            await using (var store = DocumentTestStore.InDirectory(path, o => o.ChangeFeed.Enabled = false))
            {
                await SubscriptionTestData.SaveUsersAsync(store, 2, "off"); // not logged
                var off = await Assert.ThrowsAsync<InvalidOperationException>(() => store.Subscriptions.OpenAsync("s"));
                Assert.Contains("ChangeFeed.Enabled", off.Message, StringComparison.Ordinal);
                await Assert.ThrowsAsync<InvalidOperationException>(() => store.Subscriptions.CreateAsync("t"));
                Assert.Equal(0, (await store.Subscriptions.GetAsync("s"))!.Position); // reading and deleting still work
            }

            await using (var store = DocumentTestStore.InDirectory(path))
            {
                await using var worker = await store.Subscriptions.OpenAsync("s");
                var error = await Assert.ThrowsAsync<ChangeFeedPositionException>(() => worker.NextBatchGuardedAsync());
                Assert.Equal(0, error.Requested);
                Assert.Equal(store.OldestChangePosition, error.Oldest);
            }
        }
        finally
        {
            Directory.Delete(path, recursive: true);
        }
    }
}
