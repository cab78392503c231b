using Voron.Documents.Changes;
using Voron.Documents.Indexing;

namespace Voron.Documents.Storage;

/// <summary>
/// The store's layout when a <see cref="DocumentStore"/> opens (DocumentTrees.cs FORMAT block):
/// checks the format version and the feed's state, writes them to a new store and upgrades an
/// older one (Changes/ChangeFeedFormat.cs, one write transaction), and reads the index catalog
/// the store starts with.
/// </summary>
internal static class StoreLayout
{
    /// <summary>
    /// Checks (or writes, on a new store; upgrades, on an older format) the layout of the store in
    /// <paramref name="environment"/> for a feed <paramref name="feedOn"/>, and returns its catalog.
    /// A store that needs nothing written is read once, in one read transaction.
    /// </summary>
    public static IndexCatalog Open(StorageEnvironment environment, bool feedOn)
    {
        using (var read = environment.BeginRead())
        {
            if (!ChangeFeedFormat.NeedsWrite(read, feedOn, environment.Path))
            {
                return IndexCatalog.Load(read, environment.Path);
            }
        }

        using (var write = environment.BeginWrite())
        {
            ChangeFeedFormat.Apply(write, feedOn, environment.Path);
            write.Commit();
        }

        using var after = environment.BeginRead();
        return IndexCatalog.Load(after, environment.Path);
    }

    /// <summary>
    /// I8: the layout of a store over a read replica, only read: it must be the current format
    /// (the primary writes and upgrades it, the replica applies that), and the feed's state is the
    /// one the primary recorded (<paramref name="feedOn"/>). Returns the catalog it starts with.
    /// </summary>
    /// <exception cref="InvalidOperationException">The primary has not opened a document store yet, or its layout needs an upgrade that only the primary may write.</exception>
    public static IndexCatalog OpenReplica(StorageEnvironment environment, out bool feedOn)
    {
        using var read = environment.BeginRead();
        if (ChangeFeedFormat.Read(read, environment.Path) is not { } layout)
        {
            throw new InvalidOperationException(
                $"The read replica at '{environment.Path}' holds no documents yet (transaction {read.Id}): open a DocumentStore on the primary first, " +
                "then wait here for its transaction (StorageEnvironment.WaitForTransactionAsync) and open this one again.");
        }

        if (layout.Format != DocumentTrees.StoreFormat)
        {
            throw new InvalidOperationException(
                $"The read replica at '{environment.Path}' holds documents in layout format {layout.Format}, which this version upgrades to " +
                $"{DocumentTrees.StoreFormat} when it opens them; a replica writes nothing: open the primary with this version first (it upgrades the store), " +
                "then open the replica again.");
        }

        feedOn = layout.FeedOn;
        return IndexCatalog.Load(read, environment.Path);
    }
}
