using Voron.Tests.Documents.Changes;

namespace Voron.Tests.Documents.Subscriptions;

/// <summary>Create, get, delete and open: the stored record, the one-worker lease (SU2) and their errors.</summary>
public sealed class SubscriptionLifecycleTests
{
    private static readonly TestJson Json = TestJson.Default;

    private static async Task SaveNotesAsync(DocumentStore store, int count)
    {
        await using var session = store.OpenSession();
        for (var i = 0; i < count; i++)
        {
            session.Store(new Note { Text = $"n{i}" }, Json.Note);
        }

        await session.SaveChangesAsync();
    }

    [Fact]
    public async Task Create_get_and_delete_keep_the_record_and_refuse_a_second_create()
    {
        await using var store = DocumentTestStore.InMemory();
        await SaveNotesAsync(store, 3);
        await store.Subscriptions.CreateAsync("all");
        await store.Subscriptions.CreateAsync("notes", since: 2, collection: "Notes");
        Assert.Equal(new SubscriptionState("all", null, 0), await store.Subscriptions.GetAsync("all"));
        Assert.Equal(new SubscriptionState("notes", "Notes", 2), await store.Subscriptions.GetAsync("notes"));
        Assert.Null(await store.Subscriptions.GetAsync("none"));

        var twice = await Assert.ThrowsAsync<InvalidOperationException>(() => store.Subscriptions.CreateAsync("all", since: 1));
        Assert.Contains("exists already", twice.Message, StringComparison.Ordinal);
        Assert.Equal(0, (await store.Subscriptions.GetAsync("all"))!.Position); // the second create changed nothing

        Assert.True(await store.Subscriptions.DeleteAsync("all"));
        Assert.False(await store.Subscriptions.DeleteAsync("all"));
        Assert.Null(await store.Subscriptions.GetAsync("all"));
        await store.Subscriptions.CreateAsync("all", since: 3); // the name is free again
        Assert.Equal(3, (await store.Subscriptions.GetAsync("all"))!.Position);
    }

    [Fact]
    public async Task Subscriptions_survive_reopening_the_store()
    {
        var path = Path.Combine(Path.GetTempPath(), "voron-subs-" + Guid.NewGuid().ToString("N"));
        try
        {
            await using (var store = DocumentTestStore.InDirectory(path))
            {
                await SaveNotesAsync(store, 2);
                await store.Subscriptions.CreateAsync("kept", since: 1, collection: "Notes");
            }

            await using (var store = DocumentTestStore.InDirectory(path))
            {
                Assert.Equal(new SubscriptionState("kept", "Notes", 1), await store.Subscriptions.GetAsync("kept"));
            }
        }
        finally
        {
            Directory.Delete(path, recursive: true);
        }
    }

    [Fact]
    public async Task Bad_names_positions_and_options_are_refused_before_any_write()
    {
        await using var store = DocumentTestStore.InMemory();
        await SaveNotesAsync(store, 1);
        var before = store.Environment.LastCommittedTransactionId;
        await Assert.ThrowsAsync<ArgumentException>(() => store.Subscriptions.CreateAsync(""));
        await Assert.ThrowsAsync<ArgumentException>(() => store.Subscriptions.CreateAsync("a\nb"));
        await Assert.ThrowsAsync<ArgumentException>(() => store.Subscriptions.CreateAsync(new string('x', 201)));
        await Assert.ThrowsAsync<ArgumentException>(() => store.Subscriptions.CreateAsync("\ud800"));
        await Assert.ThrowsAsync<ArgumentNullException>(() => store.Subscriptions.CreateAsync(null!));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => store.Subscriptions.CreateAsync("s", since: -1));
        await Assert.ThrowsAsync<ArgumentException>(() => store.Subscriptions.CreateAsync("s", collection: "a/b"));
        Assert.Equal(before, store.Environment.LastCommittedTransactionId);

        var future = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => store.Subscriptions.CreateAsync("s", since: 2));
        Assert.Contains("last version is 1", future.Message, StringComparison.Ordinal);
        Assert.Null(await store.Subscriptions.GetAsync("s"));

        await store.Subscriptions.CreateAsync("s");
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => store.Subscriptions.OpenAsync("s", new SubscriptionWorkerOptions { MaxBatchSize = 0 }));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => store.Subscriptions.OpenAsync("s", new SubscriptionWorkerOptions { WaitTimeout = TimeSpan.FromSeconds(-2) }));
        await using var worker = await store.Subscriptions.OpenAsync("s", new SubscriptionWorkerOptions { WaitTimeout = TimeSpan.Zero }); // nothing held by the refused ones
    }

    [Fact]
    public async Task Opening_an_unknown_subscription_fails_with_its_name()
    {
        await using var store = DocumentTestStore.InMemory();
        var error = await Assert.ThrowsAsync<SubscriptionNotFoundException>(() => store.Subscriptions.OpenAsync("missing"));
        Assert.Equal("missing", error.Name);
        Assert.Contains("'missing'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_second_worker_waits_and_gets_the_subscription_when_the_first_is_disposed()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.Subscriptions.CreateAsync("s");
        var first = await store.Subscriptions.OpenAsync("s");
        var second = store.Subscriptions.OpenAsync("s");
        await Task.Delay(50);
        Assert.False(second.IsCompleted); // waits while the first holds it

        await first.DisposeAsync();
        await using var worker = await second.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal("s", worker.Name);
        await first.DisposeAsync(); // twice: releases nothing more
        var third = await Assert.ThrowsAsync<SubscriptionInUseException>(() => store.Subscriptions.OpenAsync("s", new SubscriptionWorkerOptions { WaitTimeout = TimeSpan.Zero }));
        Assert.Equal("s", third.Name);
    }

    [Fact]
    public async Task A_worker_with_no_wait_or_a_short_one_gets_SubscriptionInUseException()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.Subscriptions.CreateAsync("s");
        await store.Subscriptions.CreateAsync("other");
        await using var holder = await store.Subscriptions.OpenAsync("s");
        var now = store.Subscriptions.OpenAsync("s", new SubscriptionWorkerOptions { WaitTimeout = TimeSpan.Zero });
        Assert.True(now.IsCompleted); // at once, no wait
        await Assert.ThrowsAsync<SubscriptionInUseException>(() => now);
        await Assert.ThrowsAsync<SubscriptionInUseException>(() => store.Subscriptions.OpenAsync("s", new SubscriptionWorkerOptions { WaitTimeout = TimeSpan.FromMilliseconds(30) }));
        await using var other = await store.Subscriptions.OpenAsync("other", new SubscriptionWorkerOptions { WaitTimeout = TimeSpan.Zero }); // leases are per name

        using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(30));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => store.Subscriptions.OpenAsync("s", cancellationToken: cancel.Token));
    }

    [Fact]
    public async Task Disposing_the_store_fails_waiting_openers_and_later_calls()
    {
        var store = DocumentTestStore.InMemory();
        await store.Subscriptions.CreateAsync("s");
        var holder = await store.Subscriptions.OpenAsync("s");
        var waiting = store.Subscriptions.OpenAsync("s");
        var batch = holder.NextBatchGuardedAsync(); // nothing to read: waits for a commit
        await Task.Delay(30);
        Assert.False(waiting.IsCompleted);
        Assert.False(batch.IsCompleted);

        await store.DisposeAsync();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => waiting.WaitAsync(TimeSpan.FromSeconds(30)));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => batch.WaitAsync(TimeSpan.FromSeconds(30)));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => store.Subscriptions.OpenAsync("s"));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => store.Subscriptions.CreateAsync("t"));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => store.Subscriptions.GetAsync("s"));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => store.Subscriptions.DeleteAsync("s"));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => holder.NextBatchGuardedAsync());
        await holder.DisposeAsync();
    }

    [Fact]
    public async Task Disposing_a_worker_ends_its_wait_for_changes()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.Subscriptions.CreateAsync("s");
        var worker = await store.Subscriptions.OpenAsync("s");
        var batch = worker.NextBatchGuardedAsync();
        await Task.Delay(30);
        Assert.False(batch.IsCompleted);
        await worker.DisposeAsync();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => batch.WaitAsync(TimeSpan.FromSeconds(30)));

        using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(30));
        await using var next = await store.Subscriptions.OpenAsync("s", new SubscriptionWorkerOptions { WaitTimeout = TimeSpan.Zero });
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => next.NextBatchAsync(cancel.Token));
    }

    [Fact]
    public async Task Deleting_a_held_subscription_fails_the_workers_next_call()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.Subscriptions.CreateAsync("s");
        await using var worker = await store.Subscriptions.OpenAsync("s");
        var waiting = worker.NextBatchGuardedAsync();
        await Task.Delay(30);
        Assert.True(await store.Subscriptions.DeleteAsync("s"));
        var error = await Assert.ThrowsAsync<SubscriptionNotFoundException>(() => waiting.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Contains("was deleted", error.Message, StringComparison.Ordinal);

        await store.Subscriptions.CreateAsync("s"); // created again: a new subscription, not the old worker's
        await Assert.ThrowsAsync<SubscriptionNotFoundException>(() => worker.NextBatchGuardedAsync());
    }
}
