namespace Voron.Tests.Documents.Changes;

/// <summary>L4 (Storage/DocumentTrees.cs): the integrity check finds a document whose version has no change entry, and an entry past the store's version.</summary>
public sealed class ChangeLogIntegrityTests
{
    private static byte[] Key(long version)
    {
        var key = new byte[8];
        BinaryPrimitives.WriteInt64BigEndian(key, version);
        return key;
    }

    [Fact]
    public async Task A_document_whose_change_entry_is_missing_breaks_L4()
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using var store = DocumentStore.Open(environment);
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("notes", "notes/1", "{}"u8);
            session.StoreRaw("notes", "notes/2", "{}"u8);
            await session.SaveChangesAsync();
        }

        store.CheckIntegrity();
        await environment.ExecuteAsync(tx => tx.CreateTree("@docs.changes").Delete(Key(2)));
        var error = Assert.Throws<InvalidOperationException>(() => store.CheckIntegrity());
        Assert.Contains("(L4)", error.Message);
        Assert.Contains("version 2", error.Message);
    }

    [Fact]
    public async Task A_change_entry_naming_another_document_or_past_the_version_breaks_L4()
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using var store = DocumentStore.Open(environment);
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("notes", "notes/1", "{}"u8);
            await session.SaveChangesAsync();
        }

        byte[] entry = [1, 0, 0, 0, 0, 0, 0, 0, 0, 5, .. "notes"u8, .. "notes/9"u8];
        await environment.ExecuteAsync(tx => tx.CreateTree("@docs.changes").Put(Key(1), entry));
        Assert.Contains("(L4)", Assert.Throws<InvalidOperationException>(() => store.CheckIntegrity()).Message);

        byte[] original = [1, 0, 0, 0, 0, 0, 0, 0, 0, 5, .. "notes"u8, .. "notes/1"u8];
        await environment.ExecuteAsync(tx =>
        {
            tx.CreateTree("@docs.changes").Put(Key(1), original);
            tx.CreateTree("@docs.changes").Put(Key(7), original);
        });
        var error = Assert.Throws<InvalidOperationException>(() => store.CheckIntegrity());
        Assert.Contains("above the store's last version", error.Message);
    }

    [Fact]
    public async Task The_background_loop_prunes_on_its_own_and_stops_at_dispose()
    {
        var store = DocumentTestStore.InMemory(o => o.ChangeFeed.Retention = TimeSpan.FromMilliseconds(100)); // the loop runs every 10 ms
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("notes", "notes/1", "{}"u8);
            session.StoreRaw("notes", "notes/2", "{}"u8);
            await session.SaveChangesAsync();
        }

        using var guard = new CancellationTokenSource(FeedReader.HangGuard); // a hang guard, not a timing assertion
        while (store.OldestChangePosition < 2)
        {
            await Task.Delay(10, guard.Token);
        }

        store.CheckIntegrity();
        store.Dispose(); // waits for the loop: nothing runs after
        Assert.Throws<ObjectDisposedException>(() => store.OldestChangePosition);
    }
}
