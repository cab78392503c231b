namespace Voron.Tests.Documents.Changes;

/// <summary>Format 2 (Storage/DocumentTrees.cs): a format-1 store is upgraded at open, and its feed starts after its history (CF4).</summary>
public sealed class ChangeFeedUpgradeTests
{
    /// <summary>Rewrites an open environment's document store to what format 1 wrote: no log, no feed keys, "format" 1.</summary>
    private static async Task MakeFormat1Async(StorageEnvironment environment)
    {
        await environment.ExecuteAsync(tx =>
        {
            tx.DeleteTree("@docs.changes");
            var meta = tx.CreateTree("@docs.meta");
            meta.Delete("feed.from"u8);
            meta.Delete("feed.on"u8);
            meta.Put("format"u8, [1, 0, 0, 0]);
        });
    }

    [Fact]
    public async Task A_format_1_store_is_upgraded_at_open_and_its_feed_yields_only_later_changes()
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using (var store = DocumentStore.Open(environment))
        {
            for (var i = 1; i <= 3; i++)
            {
                await using var session = store.OpenSession();
                session.StoreRaw("notes", $"notes/{i}", Encoding.UTF8.GetBytes("{}"));
                await session.SaveChangesAsync();
            }
        }

        await MakeFormat1Async(environment);
        using (var read = environment.BeginRead())
        {
            Assert.Null(read.OpenTree("@docs.changes"));
        }

        using (var store = DocumentStore.Open(environment))
        {
            using (var read = environment.BeginRead())
            {
                var meta = read.OpenTree("@docs.meta")!;
                Assert.Equal([3, 0, 0, 0], meta.Get("format"u8));
                Assert.Equal(BitConverter.GetBytes(3L), meta.Get("feed.from"u8));
                Assert.Equal([1], meta.Get("feed.on"u8));
                Assert.NotNull(read.OpenTree("@docs.changes"));
            }

            Assert.Equal(3, store.OldestChangePosition);
            Assert.Throws<ChangeFeedPositionException>(() => store.Changes(2));
            store.CheckIntegrity(); // L4: the old documents are at or below feed.from
            await using (var session = store.OpenSession())
            {
                session.Delete("notes/1");
                session.StoreRaw("notes", "notes/4", "{}"u8);
                await session.SaveChangesAsync();
            }

            var changes = await FeedReader.TakeAsync(store, 3, 2);
            Assert.Equal([(4L, "notes/1", DocumentChangeKind.Deleted), (5L, "notes/4", DocumentChangeKind.Stored)],
                changes.Select(c => (c.Version, c.Id, c.Kind)));
            store.CheckIntegrity();
        }
    }

    [Fact]
    public async Task A_bad_feed_entry_is_reported_as_corruption_naming_the_tree_and_rule()
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using var store = DocumentStore.Open(environment);
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("notes", "notes/1", "{}"u8);
            await session.SaveChangesAsync();
        }

        await environment.ExecuteAsync(tx => tx.CreateTree("@docs.changes").Put(BitConverter.GetBytes(1L).Reverse().ToArray(), [7, 0, 0, 0, 0, 0, 0, 0, 0, 1, (byte)'n', (byte)'x']));
        var error = await Assert.ThrowsAsync<CorruptionException>(() => FeedReader.TakeAsync(store, 0, 1));
        Assert.Contains("@docs.changes", error.Message);
        Assert.Contains("CF6", error.Message);
        Assert.Contains("0000000000000001", error.Message);
        Assert.Throws<CorruptionException>(() => store.CheckIntegrity());
    }
}
