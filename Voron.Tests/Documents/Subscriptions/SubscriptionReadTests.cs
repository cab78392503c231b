using Voron.Tests.Documents.Changes;

namespace Voron.Tests.Documents.Subscriptions;

/// <summary>SU4: batches hold the next changes after the position, in order, none skipped; a subscription to one collection moves past the others'.</summary>
public sealed class SubscriptionReadTests
{
    [Fact]
    public async Task Batches_follow_each_other_without_gap_or_repeat()
    {
        await using var store = DocumentTestStore.InMemory();
        var versions = await SubscriptionTestData.SaveUsersAsync(store, 10);
        await store.Subscriptions.CreateAsync("s");
        await using var worker = await store.Subscriptions.OpenAsync("s", new SubscriptionWorkerOptions { MaxBatchSize = 4, IncludeJson = false });
        var seen = new List<long>();
        var sizes = new List<int>();
        while (worker.Position < versions[^1])
        {
            var batch = await worker.NextBatchGuardedAsync();
            Assert.Equal(worker.Position, batch.StartPosition);
            Assert.All(batch.Changes, c => Assert.Null(c.Json));
            seen.AddRange(batch.Changes.Select(c => c.Version));
            sizes.Add(batch.Changes.Count);
            await worker.AcknowledgeAsync(batch);
        }

        Assert.Equal(versions, seen);
        Assert.Equal([4, 4, 2], sizes);
    }

    [Fact]
    public async Task A_collection_subscription_moves_past_other_collections_and_waits_for_its_own()
    {
        await using var store = DocumentTestStore.InMemory();
        var users = await SubscriptionTestData.SaveUsersAsync(store, 2, "a");
        await SubscriptionTestData.SaveNoteAsync(store, "n1");
        users.AddRange(await SubscriptionTestData.SaveUsersAsync(store, 1, "b"));
        await SubscriptionTestData.SaveNoteAsync(store, "n2");
        await SubscriptionTestData.SaveNoteAsync(store, "n3");
        await store.Subscriptions.CreateAsync("users", collection: "User");
        await using var worker = await store.Subscriptions.OpenAsync("users");

        var batch = await worker.NextBatchGuardedAsync();
        Assert.Equal(users, batch.Changes.Select(c => c.Version));
        Assert.Equal(users[^1] + 2, batch.EndPosition); // past the two notes after the last user
        await worker.AcknowledgeAsync(batch);

        var next = worker.NextBatchGuardedAsync(); // only notes come: it keeps waiting
        await SubscriptionTestData.SaveNoteAsync(store, "n4");
        await Task.Delay(50);
        Assert.False(next.IsCompleted);
        var later = await SubscriptionTestData.SaveUsersAsync(store, 1, "c");
        var live = await next.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(later, live.Changes.Select(c => c.Version));
        Assert.Equal(batch.EndPosition, live.StartPosition);
        Assert.Equal(later[0], live.EndPosition);
    }

    [Fact]
    public async Task A_waiting_worker_gets_a_change_committed_later()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.Subscriptions.CreateAsync("s");
        await using var worker = await store.Subscriptions.OpenAsync("s");
        var next = worker.NextBatchGuardedAsync();
        await Task.Delay(30);
        Assert.False(next.IsCompleted);
        var versions = await SubscriptionTestData.SaveUsersAsync(store, 2);
        var batch = await next.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(versions, batch.Changes.Select(c => c.Version));
    }

    [Fact]
    public async Task A_subscription_created_at_a_position_starts_after_it()
    {
        await using var store = DocumentTestStore.InMemory();
        var versions = await SubscriptionTestData.SaveUsersAsync(store, 5);
        await store.Subscriptions.CreateAsync("s", since: versions[2]);
        await using var worker = await store.Subscriptions.OpenAsync("s");
        Assert.Equal(versions[2], worker.Position);
        Assert.Equal(versions.Skip(3), (await worker.NextBatchGuardedAsync()).Changes.Select(c => c.Version));
    }
}
