using Voron.Documents.Indexing;
using Voron.Documents.Storage;

namespace Voron.Documents;

public sealed partial class DocumentStore
{
    /// <summary>Defines, builds and drops indexes (Indexing/IndexBuilder.cs has the build protocol).</summary>
    internal IndexBuilder IndexBuilder { get; }

    /// <summary>
    /// Makes sure the index exists as defined and is built: creates it (building it over the
    /// collection's existing documents, <paramref name="progress"/> reporting as it goes), rebuilds
    /// it when its definition changed, finishes a build left unfinished, or does nothing when it is
    /// in place. Saves proceed during a build and keep the index up to date; queries use the index
    /// once this completes. Returns true when it built something. Call it at startup for each index.
    /// </summary>
    /// <exception cref="UniqueConstraintException">A unique index's existing documents share a value (the index is dropped).</exception>
    /// <exception cref="ArgumentException">A document holds a value the index cannot take, such as an object at the path (the index is dropped; the message names the document).</exception>
    /// <remarks>Any failure of the build drops the index before the error is thrown, so <see cref="GetIndexes"/> never lists an index that cannot finish; a canceled build stays defined and resumes on the next call.</remarks>
    public async Task<bool> EnsureIndexAsync(IndexDefinition definition, IProgress<IndexBuildProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(definition);
        ThrowIfDisposed();
        if (IsReplica)
        {
            // I9: in place as defined and ready is nothing to do, as on the primary; anything else is a write.
            return Catalogs.Reload().Find(definition.Collection, definition.Name) is { Ready: true } existing && existing.Definition.Equals(definition)
                ? false
                : throw ReplicaRefusal($"EnsureIndexAsync of index '{definition.Name}' on '{definition.Collection}', which this replica does not hold ready as defined " +
                    "(define or build it on the primary; queries here can use it once the replica has applied the transaction that made it ready)");
        }

        return await IndexBuilder.EnsureAsync(definition, progress, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Drops an index and its entries; false when there was none.</summary>
    public async Task<bool> DropIndexAsync(string collection, string name, CancellationToken cancellationToken = default)
    {
        DocumentNames.CollectionBytes(collection);
        DocumentNames.ValidateIndexName(name);
        ThrowIfDisposed();
        ThrowIfReplica(nameof(DropIndexAsync)); // I9
        return await IndexBuilder.DropAsync(collection, name, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The indexes defined in the store (of one collection, or all), with their build state.</summary>
    public IReadOnlyList<IndexStatus> GetIndexes(string? collection = null)
    {
        ThrowIfDisposed();
        return [.. Catalogs.Reload().Records
            .Where(r => collection == null || r.Definition.Collection == collection)
            .Select(r => new IndexStatus(r.Definition, r.Ready))];
    }
}
