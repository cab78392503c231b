using Voron.Documents.Storage;

namespace Voron.Documents.Indexing;

/// <summary>
/// The newest index catalog a store has seen, one per store (I7): sessions compute index entries
/// with <see cref="Current"/> and a write's transaction checks its generation (I2). A reader that
/// sees a newer generation publishes the catalog it loads; the snapshot only moves forward. Gets
/// what it needs when the store is built: the environment, the catalog the layout check read
/// (Storage/StoreLayout.cs), and the store's disposed check.
/// </summary>
internal sealed class CatalogCache(StorageEnvironment environment, IndexCatalog opened, Action throwIfDisposed)
{
    private volatile IndexCatalog _current = opened;

    /// <summary>The newest index catalog this store has seen.</summary>
    public IndexCatalog Current => _current;

    private string Path => environment.Path;

    /// <summary>The catalog <paramref name="transaction"/> sees (the snapshot held, unless the transaction sees another generation); publishes a newer one.</summary>
    public IndexCatalog For(ReadTransaction transaction)
    {
        var current = _current;
        var meta = transaction.OpenTree(DocumentTrees.Meta);
        var generation = meta == null ? 0 : DocumentTrees.ReadInt64(meta, DocumentTrees.GenerationKey, Path);
        if (generation == current.Generation)
        {
            return current;
        }

        var loaded = IndexCatalog.Load(transaction, Path);
        Publish(loaded);
        return loaded;
    }

    /// <summary>Reloads the catalog from the committed state.</summary>
    public IndexCatalog Reload()
    {
        using var read = environment.BeginRead();
        return For(read);
    }

    /// <summary>
    /// I2: waits until the committed state shows catalog generation <paramref name="atLeast"/> (the
    /// transaction that raised it may still be in flight when a batch built on it sees it).
    /// </summary>
    public async Task RefreshAsync(long atLeast, CancellationToken cancellationToken)
    {
        for (var attempt = 0; attempt < 10_000; attempt++)
        {
            throwIfDisposed();
            if (Reload().Generation >= atLeast)
            {
                return;
            }

            await Task.Delay(1, cancellationToken).ConfigureAwait(false);
        }
    }

    private void Publish(IndexCatalog catalog)
    {
        for (var current = _current; catalog.Generation > current.Generation; current = _current)
        {
            if (Interlocked.CompareExchange(ref _current, catalog, current) == current)
            {
                return;
            }
        }
    }
}
