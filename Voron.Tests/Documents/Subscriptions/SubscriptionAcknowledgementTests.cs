using Voron.Tests.Documents.Changes;

namespace Voron.Tests.Documents.Subscriptions;

/// <summary>SU1: the position moves by an acknowledgement of the batch that starts at it, alone or with the worker's documents in one transaction; a stale one writes nothing.</summary>
public sealed class SubscriptionAcknowledgementTests
{
    private static readonly TestJson Json = TestJson.Default;

    [Fact]
    public async Task AcknowledgeAsync_moves_the_position_and_an_unacknowledged_batch_comes_again()
    {
        await using var store = DocumentTestStore.InMemory();
        var versions = await SubscriptionTestData.SaveUsersAsync(store, 5);
        await store.Subscriptions.CreateAsync("s");
        await using var worker = await store.Subscriptions.OpenAsync("s", new SubscriptionWorkerOptions { MaxBatchSize = 3 });

        var first = await worker.NextBatchGuardedAsync();
        Assert.Equal(versions.Take(3), first.Changes.Select(c => c.Version));
        Assert.Equal(0, first.StartPosition);
        Assert.Equal(versions[2], first.EndPosition);
        var again = await worker.NextBatchGuardedAsync(); // not acknowledged: the same changes
        Assert.Equal(versions.Take(3), again.Changes.Select(c => c.Version));

        await worker.AcknowledgeAsync(first);
        Assert.Equal(versions[2], worker.Position);
        Assert.Equal(versions[2], (await store.Subscriptions.GetAsync("s"))!.Position);
        var second = await worker.NextBatchGuardedAsync();
        Assert.Equal(versions.Skip(3), second.Changes.Select(c => c.Version));
        Assert.Equal(versions[2], second.StartPosition);
        Assert.All(second.Changes, c => Assert.Equal("User", c.Collection));
        Assert.All(second.Changes, c => Assert.NotNull(c.Json)); // IncludeJson by default
    }

    [Fact]
    public async Task A_session_of_the_batch_saves_its_documents_and_the_position_in_one_transaction()
    {
        await using var store = DocumentTestStore.InMemory();
        var versions = await SubscriptionTestData.SaveUsersAsync(store, 4);
        await store.Subscriptions.CreateAsync("s", collection: "User");
        await using var worker = await store.Subscriptions.OpenAsync("s");
        var batch = await worker.NextBatchGuardedAsync();
        Assert.Equal(versions, batch.Changes.Select(c => c.Version));

        var before = store.Environment.LastCommittedTransactionId;
        await using (var session = batch.OpenSession())
        {
            foreach (var change in batch.Changes)
            {
                SubscriptionTestData.Derive(session, change);
            }

            await session.SaveChangesAsync();
            Assert.Equal(before + 1, store.Environment.LastCommittedTransactionId); // one transaction: notes and position

            session.Store(new Note { Text = "later" }, Json.Note, "notes/later");
            await session.SaveChangesAsync(); // an ordinary save: the batch was acknowledged
        }

        Assert.Equal(batch.EndPosition, (await store.Subscriptions.GetAsync("s"))!.Position);
        Assert.Equal(batch.EndPosition, worker.Position);
        Assert.Equal(versions.Select(v => "v" + v).Append("later").Order(), (await SubscriptionTestData.NoteTextsAsync(store)).Order());
    }

    [Fact]
    public async Task A_session_with_no_changes_still_acknowledges()
    {
        await using var store = DocumentTestStore.InMemory();
        await SubscriptionTestData.SaveUsersAsync(store, 2);
        await store.Subscriptions.CreateAsync("s");
        await using var worker = await store.Subscriptions.OpenAsync("s");
        var batch = await worker.NextBatchGuardedAsync();
        await using (var session = batch.OpenSession())
        {
            await session.SaveChangesAsync();
        }

        Assert.Equal(batch.EndPosition, (await store.Subscriptions.GetAsync("s"))!.Position);
    }

    [Fact]
    public async Task A_stale_acknowledgement_fails_and_writes_nothing_of_its_session()
    {
        await using var store = DocumentTestStore.InMemory();
        await SubscriptionTestData.SaveUsersAsync(store, 3);
        await store.Subscriptions.CreateAsync("s");
        await using var worker = await store.Subscriptions.OpenAsync("s");
        var batch = await worker.NextBatchGuardedAsync();
        var copy = await worker.NextBatchGuardedAsync(); // the same changes, as a worker that lost track would hold them
        await using (var session = batch.OpenSession())
        {
            session.Store(new Note { Text = "first" }, Json.Note, "notes/first");
            await session.SaveChangesAsync();
        }

        var position = (await store.Subscriptions.GetAsync("s"))!.Position;
        var transaction = store.Environment.LastCommittedTransactionId;
        await using (var session = copy.OpenSession())
        {
            session.Store(new Note { Text = "twice" }, Json.Note, "notes/twice");
            var error = await Assert.ThrowsAsync<SubscriptionInUseException>(() => session.SaveChangesAsync());
            Assert.Contains($"at position {position}, not at 0", error.Message, StringComparison.Ordinal);
            Assert.Contains("Nothing of this save was written", error.Message, StringComparison.Ordinal);
        }

        await Assert.ThrowsAsync<SubscriptionInUseException>(() => worker.AcknowledgeAsync(copy));
        var acknowledged = await Assert.ThrowsAsync<InvalidOperationException>(() => worker.AcknowledgeAsync(batch)); // refused before any transaction
        Assert.Contains("acknowledged already", acknowledged.Message, StringComparison.Ordinal);
        Assert.Equal(transaction, store.Environment.LastCommittedTransactionId);
        Assert.Equal(position, (await store.Subscriptions.GetAsync("s"))!.Position);
        Assert.Equal(["first"], await SubscriptionTestData.NoteTextsAsync(store));
    }

    [Fact]
    public async Task An_acknowledgement_after_a_delete_fails_and_writes_nothing()
    {
        await using var store = DocumentTestStore.InMemory();
        await SubscriptionTestData.SaveUsersAsync(store, 2);
        await store.Subscriptions.CreateAsync("s");
        await using var worker = await store.Subscriptions.OpenAsync("s");
        var batch = await worker.NextBatchGuardedAsync();
        Assert.True(await store.Subscriptions.DeleteAsync("s"));
        await using (var session = batch.OpenSession())
        {
            session.Store(new Note { Text = "lost" }, Json.Note, "notes/lost");
            var error = await Assert.ThrowsAsync<SubscriptionNotFoundException>(() => session.SaveChangesAsync());
            Assert.Equal("s", error.Name);
        }

        await Assert.ThrowsAsync<SubscriptionNotFoundException>(() => worker.AcknowledgeAsync(batch));
        await Assert.ThrowsAsync<SubscriptionNotFoundException>(() => worker.NextBatchGuardedAsync());
        Assert.Empty(await SubscriptionTestData.NoteTextsAsync(store));
    }

    [Fact]
    public async Task A_disposed_worker_or_another_workers_batch_cannot_acknowledge()
    {
        await using var store = DocumentTestStore.InMemory();
        await SubscriptionTestData.SaveUsersAsync(store, 2);
        await store.Subscriptions.CreateAsync("s");
        var worker = await store.Subscriptions.OpenAsync("s");
        var batch = await worker.NextBatchGuardedAsync();
        await worker.DisposeAsync();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => worker.AcknowledgeAsync(batch));
        await using (var session = batch.OpenSession())
        {
            session.Store(new Note { Text = "late" }, Json.Note, "notes/late");
            await Assert.ThrowsAsync<ObjectDisposedException>(() => session.SaveChangesAsync());
        }

        await using var next = await store.Subscriptions.OpenAsync("s", new SubscriptionWorkerOptions { WaitTimeout = TimeSpan.Zero });
        await Assert.ThrowsAsync<ArgumentException>(() => next.AcknowledgeAsync(batch));
        Assert.Empty(await SubscriptionTestData.NoteTextsAsync(store));
        Assert.Equal(0, (await store.Subscriptions.GetAsync("s"))!.Position);
    }
}
