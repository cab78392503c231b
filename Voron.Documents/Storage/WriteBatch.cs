using System.Text;
using Voron.Documents.Changes;
using Voron.Documents.Indexing;

namespace Voron.Documents.Storage;

/// <summary>
/// A session's (or a bulk insert batch's) changes as one merged operation: <see cref="Apply"/>
/// runs inside the merger's write transaction and is all that runs there. It may run more than
/// once (M1 in Voron.Core's TransactionMerger) and so writes nothing outside the transaction but
/// the version stamps of its own records, which every run rewrites.
/// </summary>
/// <remarks>
/// Two phases, so that documents of one session may trade unique values (a -> b and b -> a):
/// first every document's stored version is read and checked (I3) and its old index entries
/// removed; then every record is written with a fresh version (I4) and its new entries added,
/// each unique entry checked against what the index holds then. The writes have distinct ids
/// (sessions key changes by id; bulk inserts keep the last of a batch's duplicates).
/// </remarks>
internal sealed class WriteBatch(IndexCatalog catalog, IReadOnlyList<PreparedWrite> writes, string storePath)
{
    private static readonly byte[] Empty = [];

    public IndexCatalog Catalog { get; } = catalog;

    public IReadOnlyList<PreparedWrite> Writes { get; } = writes;

    /// <summary>A subscription batch acknowledged in this operation (SU1), or null.</summary>
    public Subscriptions.SubscriptionAck? Ack { get; init; }

    /// <summary>The store's clock: a record expired at its "now" counts as absent for stores (XE6).</summary>
    public TimeProvider Clock { get; init; } = TimeProvider.System;

    public WriteResult[] Apply(WriteTransaction transaction)
    {
        var meta = transaction.CreateTree(DocumentTrees.Meta);
        var generation = DocumentTrees.ReadInt64(meta, DocumentTrees.GenerationKey, storePath);
        if (generation != Catalog.Generation)
        {
            throw new StaleCatalogException(Catalog.Generation, generation); // I2
        }

        var docs = transaction.CreateTree(DocumentTrees.Documents);
        var expiry = new ExpiryIndex(transaction);
        var trees = new Dictionary<string, Tree>(StringComparer.Ordinal);
        Tree TreeOf(string name)
        {
            if (!trees.TryGetValue(name, out var tree))
            {
                tree = transaction.CreateTree(name);
                trees[name] = tree;
            }

            return tree;
        }

        var existed = new bool[Writes.Count];
        var storedCollections = new string?[Writes.Count];
        var oldEntries = new byte[Writes.Count][][][];

        // Phase 1: read, check, remove what goes away.
        var now = Clock.GetUtcNow().UtcTicks;
        for (var i = 0; i < Writes.Count; i++)
        {
            var write = Writes[i];
            long actual = 0;
            string? storedCollection = null;
            byte[][][]? stored = null;
            if (docs.TryGet(write.IdBytes, out var record))
            {
                var header = DocumentRecord.ReadHeader(record, write.Id, storePath);
                if (!ExpiryIndex.MayApply(write, header))
                {
                    continue; // XE3: not (or no longer) expired; the sweeper's delete is skipped
                }

                expiry.Remove(write.IdBytes, header);
                actual = header.Version;
                var collection = DocumentRecord.Collection(record, header);
                var sameCollection = write.CollectionBytes != null && collection.SequenceEqual(write.CollectionBytes);
                storedCollection = sameCollection ? write.Collection! : Encoding.UTF8.GetString(collection);
                var gone = ExpiryIndex.CountsAsAbsent(write, header, now); // XE6
                if (write.ExpectedVersion is { } expected && expected != (gone ? 0 : actual))
                {
                    throw new ConcurrencyException(write.Id, expected, gone ? 0 : actual);
                }

                if (!write.IsDelete && !sameCollection && !gone)
                {
                    throw new InvalidOperationException($"Document '{write.Id}' belongs to collection '{storedCollection}'; it cannot be stored in collection '{write.Collection}'. Delete it first, or use another id.");
                }

                var indexes = Catalog.For(storedCollection);
                if (indexes != null)
                {
                    if (write.HintEntries != null && write.HintVersion == actual && sameCollection)
                    {
                        stored = write.HintEntries;
                    }
                    else
                    {
                        var extractor = indexes.CreateExtractor();
                        byte[]? rented = null;
                        try
                        {
                            var json = DocumentRecord.Json(record, header, ref rented, write.Id, storePath);
                            stored = indexes.ComputeEntries(json, write.IdBytes, extractor);
                        }
                        finally
                        {
                            if (rented != null)
                            {
                                System.Buffers.ArrayPool<byte>.Shared.Return(rented);
                            }
                        }
                    }

                    for (var x = 0; x < indexes.Indexes.Count; x++)
                    {
                        var tree = TreeOf(indexes.Indexes[x].TreeName);
                        foreach (var key in stored[x])
                        {
                            if (write.IsDelete || gone || !Contains(write.NewEntries![x], key))
                            {
                                tree.Delete(key);
                            }
                        }
                    }
                }

                if (gone)
                {
                    TreeOf(DocumentTrees.CollectionTree(storedCollection)).Delete(write.IdBytes); // stored below as a new document
                    continue;
                }

                existed[i] = true;
                storedCollections[i] = storedCollection;
                oldEntries[i] = stored ?? [];
            }
            else if (write.ExpectedVersion is { } expected && expected != 0)
            {
                throw new ConcurrencyException(write.Id, expected, 0);
            }
        }

        // Phase 2: write records and add what is new.
        var version = DocumentTrees.ReadInt64(meta, DocumentTrees.VersionKey, storePath);
        var ticks = DateTime.UtcNow.Ticks;
        var changes = ChangeRecorder.Open(transaction, meta); // CF1
        var results = new WriteResult[Writes.Count];
        Dictionary<string, long>? counters = null;
        for (var i = 0; i < Writes.Count; i++)
        {
            var write = Writes[i];
            if (write.IsDelete)
            {
                if (existed[i])
                {
                    docs.Delete(write.IdBytes);
                    TreeOf(DocumentTrees.CollectionTree(storedCollections[i]!)).Delete(write.IdBytes);
                    changes.Deleted(++version, ticks, storedCollections[i]!, write); // I4: the tombstone's position (CF1)
                }

                results[i] = new WriteResult(0, ticks, existed[i]);
                continue;
            }

            version++; // I4
            changes.Stored(version, ticks, write); // CF1
            DocumentRecord.Stamp(write.Record!, version, ticks);
            docs.Put(write.IdBytes, write.Record);
            expiry.Add(write.IdBytes, write.Record);
            if (!existed[i])
            {
                TreeOf(DocumentTrees.CollectionTree(write.Collection!)).Put(write.IdBytes, Empty);
            }

            var indexes = Catalog.For(write.Collection!);
            if (indexes != null)
            {
                for (var x = 0; x < indexes.Indexes.Count; x++)
                {
                    var index = indexes.Indexes[x];
                    var tree = TreeOf(index.TreeName);
                    var old = existed[i] && oldEntries[i].Length > 0 ? oldEntries[i][x] : null;
                    foreach (var key in write.NewEntries![x])
                    {
                        if (old != null && Contains(old, key))
                        {
                            continue;
                        }

                        if (index.Definition.IsUnique)
                        {
                            UniqueCheck.Ensure(tree, index, key, write.IdBytes, write.Id);
                        }

                        tree.Put(key, Empty);
                    }
                }
            }

            if (write.GeneratedNumber > 0 && write.GeneratedPrefix != null)
            {
                // I5: the id's prefix's counter, not the document's collection's ("Users/7" in "Other" raises "ctr/Users")
                counters ??= new Dictionary<string, long>(StringComparer.Ordinal);
                counters[write.GeneratedPrefix] = Math.Max(counters.GetValueOrDefault(write.GeneratedPrefix), write.GeneratedNumber);
            }

            results[i] = new WriteResult(version, ticks, existed[i]);
        }

        if (counters != null)
        {
            foreach (var (collection, n) in counters)
            {
                var key = DocumentTrees.CounterKey(collection);
                if (DocumentTrees.ReadInt64(meta, key, storePath) < n)
                {
                    DocumentTrees.WriteInt64(meta, key, n); // I5
                }
            }
        }

        DocumentTrees.WriteInt64(meta, DocumentTrees.VersionKey, version);
        Ack?.Apply(transaction); // SU1: with the documents, or nothing
        return results;
    }

    private static bool Contains(byte[][] sortedKeys, byte[] key) =>
        Array.BinarySearch(sortedKeys, key, ByteComparer.Instance) >= 0;
}
