using System.Buffers.Binary;
using System.Text;

namespace Voron.Documents.Storage;

/// <summary>
/// The <c>@docs.expires</c> tree (DocumentTrees.cs): expiry ticks (int64 BIG-endian, so keys sort
/// by time) ++ document id, value empty. A writing operation (WriteBatch, BulkBatch) makes one per
/// transaction run and calls <see cref="Remove"/> for every stored record it replaces or deletes and
/// <see cref="Add"/> for every record it writes, so the tree stays exact (XE2). The tree is opened
/// only when a record with an expiry is involved: stores that never use expiration never create it.
/// </summary>
/// <remarks>
/// XE2. @docs.expires holds exactly one entry, (expiry ticks, id), per @docs record with the
///      Expires flag, and nothing else; it changes in the transaction that writes the record.
/// </remarks>
internal sealed class ExpiryIndex(WriteTransaction transaction)
{
    public const int TicksSize = 8;

    private static readonly byte[] Empty = [];
    private Tree? _tree;

    private Tree Tree => _tree ??= transaction.CreateTree(DocumentTrees.Expires);

    /// <summary>Removes the entry of a stored record whose header is <paramref name="stored"/> (nothing when it has no expiry).</summary>
    public void Remove(ReadOnlySpan<byte> id, in RecordHeader stored)
    {
        if (stored.ExpiresTicks != 0)
        {
            Tree.Delete(Key(stored.ExpiresTicks, id));
        }
    }

    /// <summary>Adds the entry of a record <see cref="DocumentRecord.Build"/> made (nothing when it has no expiry).</summary>
    public void Add(ReadOnlySpan<byte> id, byte[]? built)
    {
        if (built != null && DocumentRecord.BuiltExpiresTicks(built) is var ticks and not 0)
        {
            Tree.Put(Key(ticks, id), Empty);
        }
    }

    /// <summary>
    /// XE3: whether a sweeper's write (<see cref="PreparedWrite.ExpiredOnly"/>) may delete the stored
    /// record <paramref name="stored"/>: only while it still expires at or before the sweep's cutoff.
    /// Any other write: always.
    /// </summary>
    public static bool MayApply(PreparedWrite write, in RecordHeader stored) =>
        !write.ExpiredOnly || (stored.ExpiresTicks != 0 && stored.ExpiresTicks <= write.ExpiryCutoff);

    /// <summary>
    /// XE6. a store (not a delete) of an id whose record expired at the batch's "now" but is not
    /// swept yet meets no document: reads hide it (XE1), so an expected version of 0 holds, the
    /// id may go to another collection, and the old record's index and collection entries are
    /// removed as a delete would before the new document is written as a new one.
    /// </summary>
    public static bool CountsAsAbsent(PreparedWrite write, in RecordHeader stored, long nowTicks) =>
        !write.IsDelete && !write.ExpiredOnly && stored.IsExpired(nowTicks);

    public static byte[] Key(long ticks, ReadOnlySpan<byte> id)
    {
        var key = new byte[TicksSize + id.Length];
        BinaryPrimitives.WriteInt64BigEndian(key, ticks);
        id.CopyTo(key.AsSpan(TicksSize));
        return key;
    }

    /// <summary>
    /// Up to <paramref name="max"/> ids whose entries expire at or before <paramref name="cutoff"/>,
    /// from the earliest, strictly after <paramref name="after"/> (a key, or null for the start).
    /// Returns the last key read (null when none), so the next call resumes after it.
    /// </summary>
    public static byte[]? Due(ReadTransaction read, long cutoff, byte[]? after, int max, List<(string Id, byte[] IdBytes)> into, string storePath)
    {
        var tree = read.OpenTree(DocumentTrees.Expires);
        if (tree == null)
        {
            return null;
        }

        var iterator = tree.Iterate();
        byte[]? last = null;
        var more = after == null ? iterator.SeekFirst() : iterator.Seek(after);
        if (more && after != null && iterator.Key.SequenceEqual(after))
        {
            more = iterator.MoveNext();
        }

        for (; more && into.Count < max; more = iterator.MoveNext())
        {
            var key = iterator.Key;
            if (key.Length <= TicksSize || key.Length > TicksSize + DocumentLimits.MaxIdBytes)
            {
                throw new CorruptionException(storePath, 0, $"an entry of tree '{DocumentTrees.Expires}' is {key.Length} bytes; it is 8 bytes of ticks and an id of 1..{DocumentLimits.MaxIdBytes} (XE2).");
            }

            if (BinaryPrimitives.ReadInt64BigEndian(key) > cutoff)
            {
                break;
            }

            var id = key[TicksSize..].ToArray();
            into.Add((Encoding.UTF8.GetString(id), id));
            last = key.ToArray();
        }

        return last;
    }
}
