using System.Buffers;
using System.Text;
using Voron.Documents.Indexing;

namespace Voron.Documents.Storage;

/// <summary>A stored document as a snapshot holds it (<see cref="ReadPort.Find"/>).</summary>
/// <param name="Collection">Its collection.</param>
/// <param name="Json">Its JSON (empty when read without it).</param>
/// <param name="Version">Its version (I4).</param>
/// <param name="Ticks">When it was last written (UTC ticks).</param>
internal readonly record struct StoredDocument(string Collection, byte[] Json, long Version, long Ticks);

/// <summary>
/// RP1. The one way a reader outside the document store's own code (the SQL module, voron_docs)
///      reads the stored documents of one store snapshot: documents by id, a collection's ids,
///      an index's entries in a key range, the catalog and the version counter (I4) the snapshot
///      sees. It knows the store's trees and record format; its callers know only the index key
///      encoding (Indexing/IndexKey.cs's FORMAT), which their ranges are written in. Used by one
///      thread at a time; it holds no lock and owns no transaction.
/// </summary>
internal sealed class ReadPort(DocumentStore store, ReadTransaction snapshot)
{
    private Tree? _docs;
    private bool _docsOpened;
    private byte[]? _lastCollectionBytes;
    private string? _lastCollection;

    /// <summary>The snapshot this port reads.</summary>
    public ReadTransaction Snapshot { get; } = snapshot;

    /// <summary>The index catalog of the snapshot's generation (I2).</summary>
    public IndexCatalog Catalog => store.Catalogs.For(Snapshot);

    /// <summary>
    /// The document version counter (I4) of the store at <paramref name="storePath"/> in
    /// <paramref name="transaction"/>: it moves with every document written or deleted. Static:
    /// it needs no document store open (a SQL connection compares two snapshots with it).
    /// </summary>
    public static long VersionCounter(ReadTransaction transaction, string storePath)
    {
        var meta = transaction.OpenTree(DocumentTrees.Meta);
        return meta == null ? 0 : DocumentTrees.ReadInt64(meta, DocumentTrees.VersionKey, storePath);
    }

    /// <summary>
    /// The document <paramref name="id"/> as the snapshot holds it, or null: none, or expired at
    /// <paramref name="nowTicks"/> (XE1: an expired document is absent to readers).
    /// </summary>
    public StoredDocument? Find(string id, byte[] idBytes, bool readJson, long nowTicks)
    {
        if (!_docsOpened)
        {
            _docs = Snapshot.OpenTree(DocumentTrees.Documents);
            _docsOpened = true;
        }

        if (_docs == null || !_docs.TryGet(idBytes, out var record))
        {
            return null;
        }

        var header = DocumentRecord.ReadHeader(record, id, store.Path);
        if (header.ExpiresTicks != 0 && header.IsExpired(nowTicks))
        {
            return null;
        }

        var collectionBytes = DocumentRecord.Collection(record, header);
        if (_lastCollection == null || !collectionBytes.SequenceEqual(_lastCollectionBytes))
        {
            _lastCollectionBytes = collectionBytes.ToArray();
            _lastCollection = Encoding.UTF8.GetString(collectionBytes);
        }

        byte[] json = [];
        if (readJson)
        {
            byte[]? rented = null;
            try
            {
                json = DocumentRecord.Json(record, header, ref rented, id, store.Path).ToArray();
            }
            finally
            {
                if (rented != null)
                {
                    ArrayPool<byte>.Shared.Return(rented);
                }
            }
        }

        return new StoredDocument(_lastCollection, json, header.Version, header.Ticks);
    }

    /// <summary>The ids of <paramref name="collection"/>, in id order, from <paramref name="from"/> (inclusive) to <paramref name="to"/> (exclusive), either end open when null.</summary>
    public IEnumerable<byte[]> Ids(string collection, byte[]? from, byte[]? to, bool descending) =>
        Keys(Snapshot.OpenTree(DocumentTrees.CollectionTree(collection)), from, to, descending);

    /// <summary>Whether the snapshot holds <paramref name="index"/>'s tree (an index with no entry yet may have none).</summary>
    public bool HasEntries(IndexRuntime index) => Snapshot.OpenTree(index.TreeName) != null;

    /// <summary>
    /// The entries of <paramref name="index"/> from <paramref name="lower"/> (inclusive) to
    /// <paramref name="upper"/> (exclusive, open when null), in key order or its reverse: each
    /// entry's key (the values, then the document's id, K's FORMAT).
    /// </summary>
    public IEnumerable<byte[]> Entries(IndexRuntime index, byte[]? lower, byte[]? upper, bool descending) =>
        Keys(Snapshot.OpenTree(index.TreeName), lower, upper, descending);

    /// <summary>The first entry of <paramref name="index"/> at or after <paramref name="key"/>, or null.</summary>
    public byte[]? FirstEntryFrom(IndexRuntime index, ReadOnlySpan<byte> key)
    {
        var tree = Snapshot.OpenTree(index.TreeName);
        if (tree == null)
        {
            return null;
        }

        var iterator = tree.Iterate();
        return iterator.Seek(key) ? iterator.Key.ToArray() : null;
    }

    /// <summary>The entries of <paramref name="index"/> whose key starts with <paramref name="prefix"/>, in key order.</summary>
    public IEnumerable<byte[]> EntriesWithPrefix(IndexRuntime index, byte[] prefix)
    {
        var tree = Snapshot.OpenTree(index.TreeName);
        if (tree == null)
        {
            yield break;
        }

        var iterator = tree.Iterate();
        for (var more = iterator.SeekPrefix(prefix); more && iterator.Key.StartsWith(prefix); more = iterator.MoveNext())
        {
            yield return iterator.Key.ToArray();
        }
    }

    private static IEnumerable<byte[]> Keys(Tree? tree, byte[]? from, byte[]? to, bool descending)
    {
        if (tree == null)
        {
            yield break;
        }

        var iterator = tree.Iterate();
        if (!descending)
        {
            for (var more = from == null ? iterator.SeekFirst() : iterator.Seek(from); more; more = iterator.MoveNext())
            {
                if (to != null && iterator.Key.SequenceCompareTo(to) >= 0)
                {
                    yield break;
                }

                yield return iterator.Key.ToArray();
            }
        }
        else
        {
            var more = to == null ? iterator.SeekLast() : iterator.SeekForPrevious(to);
            if (more && to != null && iterator.Key.SequenceEqual(to))
            {
                more = iterator.MovePrevious();
            }

            for (; more; more = iterator.MovePrevious())
            {
                if (from != null && iterator.Key.SequenceCompareTo(from) < 0)
                {
                    yield break;
                }

                yield return iterator.Key.ToArray();
            }
        }
    }
}
