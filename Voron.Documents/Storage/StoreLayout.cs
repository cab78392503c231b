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
}
