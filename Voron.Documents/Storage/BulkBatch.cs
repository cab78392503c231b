using System.Text;
using Voron.Documents.Changes;
using Voron.Documents.Indexing;

namespace Voron.Documents.Storage;

/// <summary>
/// A bulk insert batch as one merged operation: what <see cref="WriteBatch"/> does for a batch of
/// puts, in key order. Runs inside the merger's write transaction and may run more than once (M1):
/// it writes nothing outside the transaction but the version stamps of its own records.
/// </summary>
/// <remarks>
/// BI1. A bulk batch writes in key order and reports in input order: records and collection
///      entries go in id order and each non-unique index's new entries in key order (an in-order
///      run descends to a leaf it just touched), yet the outcome is the input order's: versions
///      are numbered in input order (I4), of several failing checks the first in input order is
///      reported, and unique entries are checked and added in input order, document by document,
///      so the document a <see cref="UniqueConstraintException"/> names is the one
///      <see cref="WriteBatch"/> would name.
/// The writes are puts with distinct ids (the bulk insert keeps the last of a batch's duplicates).
/// </remarks>
internal sealed class BulkBatch
{
    private static readonly byte[] Empty = [];
    private readonly IReadOnlyList<PreparedWrite> _writes;
    private readonly string _storePath;
    private readonly int[] _byId;

    public BulkBatch(IndexCatalog catalog, IReadOnlyList<PreparedWrite> writes, string storePath)
    {
        Catalog = catalog;
        _writes = writes;
        _storePath = storePath;
        _byId = ById(writes);
    }

    public IndexCatalog Catalog { get; }

    public WriteResult[] Apply(WriteTransaction transaction)
    {
        var meta = transaction.CreateTree(DocumentTrees.Meta);
        var generation = DocumentTrees.ReadInt64(meta, DocumentTrees.GenerationKey, _storePath);
        if (generation != Catalog.Generation)
        {
            throw new StaleCatalogException(Catalog.Generation, generation); // I2
        }

        var opened = new Dictionary<string, Tree>(StringComparer.Ordinal);
        Tree TreeOf(string name)
        {
            if (!opened.TryGetValue(name, out var tree))
            {
                tree = transaction.CreateTree(name);
                opened[name] = tree;
            }

            return tree;
        }

        var docs = TreeOf(DocumentTrees.Documents);
        var count = _writes.Count;
        var existed = new bool[count];
        var oldEntries = new byte[count][][][];
        RemoveStored(TreeOf, docs, existed, oldEntries);

        // Versions in input order (I4, BI1); records and collection entries in id order.
        var version = DocumentTrees.ReadInt64(meta, DocumentTrees.VersionKey, _storePath);
        var ticks = DateTime.UtcNow.Ticks;
        var results = new WriteResult[count];
        var changes = ChangeRecorder.Open(transaction, meta); // CF1
        for (var i = 0; i < count; i++)
        {
            results[i] = new WriteResult(++version, ticks, existed[i]);
            changes.Stored(version, ticks, _writes[i]); // CF1: in version order, so the log's tree appends
        }

        Tree? collectionTree = null;
        string? collectionName = null;
        foreach (var i in _byId)
        {
            var write = _writes[i];
            DocumentRecord.Stamp(write.Record!, results[i].Version, ticks);
            docs.Put(write.IdBytes, write.Record);
            if (!existed[i])
            {
                if (!string.Equals(collectionName, write.Collection, StringComparison.Ordinal))
                {
                    collectionName = write.Collection!;
                    collectionTree = TreeOf(DocumentTrees.CollectionTree(collectionName));
                }

                collectionTree!.Put(write.IdBytes, Empty);
            }
        }

        AddEntries(TreeOf, existed, oldEntries);
        RaiseCounters(meta);
        DocumentTrees.WriteInt64(meta, DocumentTrees.VersionKey, version);
        return results;
    }

    /// <summary>The writes' positions ordered by id (ordinal bytes, as the documents tree orders them).</summary>
    private static int[] ById(IReadOnlyList<PreparedWrite> writes)
    {
        var keys = new byte[writes.Count][];
        var order = new int[writes.Count];
        for (var i = 0; i < keys.Length; i++)
        {
            if (writes[i].IsDelete)
            {
                throw new ArgumentException("A bulk batch holds puts only.", nameof(writes));
            }

            keys[i] = writes[i].IdBytes;
            order[i] = i;
        }

        Array.Sort(keys, order, ByteComparer.Instance);
        return order;
    }

    /// <summary>
    /// Phase 1 in id order: reads each id, checks it (I3, the collection) and removes the index
    /// entries of a replaced document that its new version does not keep. Of several failures the
    /// first in input order is thrown (BI1), after the pass (the transaction is discarded then).
    /// </summary>
    private void RemoveStored(Func<string, Tree> treeOf, Tree docs, bool[] existed, byte[][][][] oldEntries)
    {
        var failedAt = int.MaxValue;
        Exception? failure = null;
        foreach (var i in _byId)
        {
            var write = _writes[i];
            Exception? problem = null;
            if (docs.TryGet(write.IdBytes, out var record))
            {
                var header = DocumentRecord.ReadHeader(record, write.Id, _storePath);
                var collection = DocumentRecord.Collection(record, header);
                var sameCollection = write.CollectionBytes != null && collection.SequenceEqual(write.CollectionBytes);
                var storedCollection = sameCollection ? write.Collection! : Encoding.UTF8.GetString(collection);
                if (write.ExpectedVersion is { } expected && expected != header.Version)
                {
                    problem = new ConcurrencyException(write.Id, expected, header.Version);
                }
                else if (!sameCollection)
                {
                    problem = new InvalidOperationException($"Document '{write.Id}' belongs to collection '{storedCollection}'; it cannot be stored in collection '{write.Collection}'. Delete it first, or use another id.");
                }
                else
                {
                    existed[i] = true;
                    oldEntries[i] = RemoveOldEntries(treeOf, write, record, header);
                }
            }
            else if (write.ExpectedVersion is { } expected && expected != 0)
            {
                problem = new ConcurrencyException(write.Id, expected, 0);
            }

            if (problem != null && i < failedAt)
            {
                failedAt = i;
                failure = problem;
            }
        }

        if (failure != null)
        {
            throw failure;
        }
    }

    private byte[][][] RemoveOldEntries(Func<string, Tree> treeOf, PreparedWrite write, ReadOnlySpan<byte> record, RecordHeader header)
    {
        if (Catalog.For(write.Collection!) is not { } indexes)
        {
            return [];
        }

        byte[]? rented = null;
        byte[][][] stored;
        var extractor = indexes.Rent(); // SV2: not a new extractor for every replaced document
        try
        {
            var json = DocumentRecord.Json(record, header, ref rented, write.Id, _storePath);
            stored = indexes.ComputeEntries(json, write.IdBytes, extractor);
        }
        finally
        {
            indexes.Return(extractor);
            if (rented != null)
            {
                System.Buffers.ArrayPool<byte>.Shared.Return(rented);
            }
        }

        for (var x = 0; x < indexes.Indexes.Count; x++)
        {
            var tree = treeOf(indexes.Indexes[x].TreeName);
            foreach (var key in stored[x])
            {
                if (!Contains(write.NewEntries![x], key))
                {
                    tree.Delete(key);
                }
            }
        }

        return stored;
    }

    /// <summary>
    /// Phase 2's index half: unique indexes in input order, document by document (each entry
    /// checked against what the index holds then); then each other index's new entries sorted by
    /// key and added in that order (BI1).
    /// </summary>
    private void AddEntries(Func<string, Tree> treeOf, bool[] existed, byte[][][][] oldEntries)
    {
        Dictionary<string, List<byte[]>>? sorted = null;
        for (var i = 0; i < _writes.Count; i++)
        {
            var write = _writes[i];
            if (Catalog.For(write.Collection!) is not { } indexes)
            {
                continue;
            }

            for (var x = 0; x < indexes.Indexes.Count; x++)
            {
                var index = indexes.Indexes[x];
                var old = existed[i] && oldEntries[i].Length > 0 ? oldEntries[i][x] : null;
                List<byte[]>? pending = null;
                Tree? tree = null;
                foreach (var key in write.NewEntries![x])
                {
                    if (old != null && Contains(old, key))
                    {
                        continue;
                    }

                    if (index.Definition.IsUnique)
                    {
                        tree ??= treeOf(index.TreeName);
                        UniqueCheck.Ensure(tree, index, key, write.IdBytes, write.Id);
                        tree.Put(key, Empty);
                        continue;
                    }

                    sorted ??= new Dictionary<string, List<byte[]>>(StringComparer.Ordinal);
                    if (pending == null && !sorted.TryGetValue(index.TreeName, out pending))
                    {
                        pending = new List<byte[]>(_writes.Count);
                        sorted[index.TreeName] = pending;
                    }

                    pending!.Add(key);
                }
            }
        }

        if (sorted == null)
        {
            return;
        }

        foreach (var (name, keys) in sorted)
        {
            keys.Sort(ByteComparer.Instance);
            var tree = treeOf(name);
            foreach (var key in keys)
            {
                tree.Put(key, Empty); // distinct: each key ends with its document's id
            }
        }
    }

    private void RaiseCounters(Tree meta)
    {
        Dictionary<string, long>? counters = null;
        foreach (var write in _writes)
        {
            if (write.GeneratedNumber > 0 && write.GeneratedPrefix != null)
            {
                // I5: the id's prefix's counter, not the document's collection's
                counters ??= new Dictionary<string, long>(StringComparer.Ordinal);
                counters[write.GeneratedPrefix] = Math.Max(counters.GetValueOrDefault(write.GeneratedPrefix), write.GeneratedNumber);
            }
        }

        if (counters == null)
        {
            return;
        }

        foreach (var (prefix, n) in counters)
        {
            var key = DocumentTrees.CounterKey(prefix);
            if (DocumentTrees.ReadInt64(meta, key, _storePath) < n)
            {
                DocumentTrees.WriteInt64(meta, key, n); // I5
            }
        }
    }

    private static bool Contains(byte[][] sortedKeys, byte[] key) =>
        Array.BinarySearch(sortedKeys, key, ByteComparer.Instance) >= 0;
}
