using System.Buffers.Binary;
using System.Text;
using Voron.Documents.Storage;

namespace Voron.Documents.Changes;

// FORMAT: change log entry, document store format 2 — one entry of the @docs.changes tree
// (Storage/DocumentTrees.cs) per stored or deleted document, written by the transaction that
// wrote the document.
//
//   key:   version (int64 BIG-endian, 8 B): the version the write took (I4), so keys sort by version
//   value: +------+-------+---+------------+----------+
//          | kind | ticks | C | collection | id       |
//          +------+-------+---+------------+----------+
//
//   OFFSET  SIZE  NAME        MEANING
//   0       1     kind        1 Stored, 2 Deleted (DocumentChangeKind)
//   1       8     ticks       int64 LE: UTC ticks of the write (the record's LastModified)
//   9       1     C           collection name length in UTF-8 bytes, 1..128
//   10      C     collection  UTF-8
//   10+C    rest  id          UTF-8, 1..512 bytes
//
// Validity (a reader that finds an invalid entry throws CorruptionException naming the tree,
// the key and the rule; there is no checksum: Voron's pages have theirs):
//   CF6. An entry is valid iff its key is 8 bytes holding a version >= 1; its value is at least
//        12 bytes; kind is 1 or 2; ticks is within DateTime's range; 1 <= C <= 128; and the id
//        is 1..512 bytes.
//
// Invariants:
//   CF1. Every write that stores or deletes a document appends one entry in its own transaction,
//        keyed by the version the write took; nothing else writes entries (the pruner deletes
//        the oldest). So a snapshot's log holds every change up to its "version" that is above
//        "feed.from", and a later commit only adds larger versions.
//   CF2. A feed reads one batch per short read transaction and yields it after disposing it: a
//        consumer never holds a snapshot (nor the writer, nor memory beyond one batch).
//   CF3. A feed's position is the largest version it has scanned in some snapshot; by CF1 every
//        change at or below it that will ever be logged was in that snapshot, so resuming above
//        it misses none and repeats none.
//   CF7. A feed that has read everything of a snapshot waits for a commit after that snapshot's
//        transaction id (StorageEnvironment.WaitForCommitAsync, CW1): a commit made after it
//        read always wakes it, and it never polls.
//   CF8. A feed starts after a position from 0 to the store's last version, checked in the snapshot
//        of its first read: 0 means the oldest retained position (everything the log holds), a
//        position below "feed.from" was pruned, and one above "version" is ahead of the store (a
//        restored backup, or commits lost in a crash with DurabilityMode.Lazy): the versions above
//        "version" will be given again to other changes, so a feed there would skip them silently.

/// <summary>Appends to and reads the change log (@docs.changes); see the FORMAT block above.</summary>
internal static class ChangeLog
{
    public const int KindOffset = 0;
    public const int TicksOffset = 1;
    public const int CollectionLengthOffset = 9;
    public const int HeaderSize = 10;

    /// <summary>How many entries one <see cref="Read"/> looks at, per change it may return: a filtered read of a busy log still ends soon (CF2).</summary>
    private const int ScanFactor = 8;

    /// <summary>The tree key of <paramref name="version"/>.</summary>
    public static void WriteKey(Span<byte> key, long version) => BinaryPrimitives.WriteInt64BigEndian(key, version);

    /// <summary>CF1: one entry, in the writing transaction.</summary>
    public static void Append(Tree changes, long version, DocumentChangeKind kind, long ticks, ReadOnlySpan<byte> collection, ReadOnlySpan<byte> id)
    {
        Span<byte> key = stackalloc byte[8];
        WriteKey(key, version);
        var length = HeaderSize + collection.Length + id.Length;
        Span<byte> value = length <= 1024 ? stackalloc byte[length] : new byte[length];
        value[KindOffset] = (byte)kind;
        BinaryPrimitives.WriteInt64LittleEndian(value[TicksOffset..], ticks);
        value[CollectionLengthOffset] = checked((byte)collection.Length);
        collection.CopyTo(value[HeaderSize..]);
        id.CopyTo(value[(HeaderSize + collection.Length)..]);
        changes.Put(key, value);
    }

    /// <summary>The store's last version ("version"): the largest position a feed may start after.</summary>
    public static long Last(ReadTransaction read, string storePath) =>
        read.OpenTree(DocumentTrees.Meta) is { } meta ? DocumentTrees.ReadInt64(meta, DocumentTrees.VersionKey, storePath) : 0;

    /// <summary>
    /// The position a feed asked to start after <paramref name="since"/> reads after, checked in
    /// <paramref name="read"/>'s snapshot (CF8): 0 is the oldest retained position; a position
    /// below it, or above the last version, throws <see cref="ChangeFeedPositionException"/>.
    /// </summary>
    public static long Start(ReadTransaction read, long since, string storePath)
    {
        var oldest = Oldest(read, storePath);
        if (since == 0)
        {
            return oldest;
        }

        if (since < oldest)
        {
            throw new ChangeFeedPositionException(since, oldest);
        }

        var last = Last(read, storePath);
        if (since > last)
        {
            throw ChangeFeedPositionException.Ahead(since, oldest, last);
        }

        return since;
    }

    /// <summary>The smallest position a feed may start after ("feed.from"; 0 for a store that logged from its start).</summary>
    public static long Oldest(ReadTransaction read, string storePath) =>
        read.OpenTree(DocumentTrees.Meta) is { } meta ? DocumentTrees.ReadInt64(meta, DocumentTrees.FeedFromKey, storePath) : 0;

    /// <summary>
    /// Adds to <paramref name="into"/> up to <paramref name="max"/> changes with versions above
    /// <paramref name="after"/> (of <paramref name="collection"/> only, when given), in version order,
    /// and returns how many. <paramref name="scannedThrough"/> is the largest version looked at
    /// (<paramref name="after"/> if none), so a filtered reader advances past other collections (CF3).
    /// With <paramref name="includeJson"/>, a stored change carries its JSON when the document still
    /// holds that version.
    /// </summary>
    public static int Read(ReadTransaction read, long after, string? collection, bool includeJson, int max, List<DocumentChange> into, out long scannedThrough, string storePath)
    {
        scannedThrough = after;
        var changes = read.OpenTree(DocumentTrees.Changes);
        if (changes == null || max <= 0)
        {
            return 0;
        }

        var wanted = collection == null ? null : Encoding.UTF8.GetBytes(collection);
        var docs = includeJson ? read.OpenTree(DocumentTrees.Documents) : null;
        var iterator = changes.Iterate();
        Span<byte> start = stackalloc byte[8];
        WriteKey(start, after == long.MaxValue ? after : after + 1);
        byte[] lastCollection = [];
        string? lastName = null;
        var added = 0;
        var budget = (long)max * ScanFactor;
        for (var more = iterator.Seek(start); more && added < max && budget-- > 0; more = iterator.MoveNext())
        {
            var entry = Parse(iterator.Key, iterator.Value, storePath);
            if (entry.Version <= after)
            {
                throw Corrupt(storePath, iterator.Key, "keys ascend (an entry sorted after the key sought is below it)");
            }

            scannedThrough = entry.Version;
            if (wanted != null && !entry.Collection.SequenceEqual(wanted))
            {
                continue;
            }

            if (wanted == null && !entry.Collection.SequenceEqual(lastCollection))
            {
                lastCollection = entry.Collection.ToArray(); // runs of one collection share their name
                lastName = Encoding.UTF8.GetString(lastCollection);
            }

            var name = wanted != null ? collection! : lastName!;
            var id = Encoding.UTF8.GetString(entry.Id);
            var change = new DocumentChange(entry.Version, id, name, entry.Kind, new DateTimeOffset(entry.Ticks, TimeSpan.Zero));
            if (docs != null && entry.Kind == DocumentChangeKind.Stored)
            {
                change = change with { Json = JsonOf(docs, entry.Id, id, entry.Version, storePath) };
            }

            into.Add(change);
            added++;
        }

        return added;
    }

    /// <summary>A validated entry (CF6); its spans point into the tree's page.</summary>
    public readonly ref struct Entry(long version, DocumentChangeKind kind, long ticks, ReadOnlySpan<byte> collection, ReadOnlySpan<byte> id)
    {
        public long Version { get; } = version;

        public DocumentChangeKind Kind { get; } = kind;

        public long Ticks { get; } = ticks;

        public ReadOnlySpan<byte> Collection { get; } = collection;

        public ReadOnlySpan<byte> Id { get; } = id;
    }

    /// <summary>CF6: validates an entry read from the tree.</summary>
    public static Entry Parse(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, string storePath)
    {
        if (key.Length != 8)
        {
            throw Corrupt(storePath, key, $"CF6 (a key is 8 bytes; this one is {key.Length})");
        }

        var version = BinaryPrimitives.ReadInt64BigEndian(key);
        if (version < 1)
        {
            throw Corrupt(storePath, key, "CF6 (a version is at least 1)");
        }

        if (value.Length < HeaderSize + 2)
        {
            throw Corrupt(storePath, key, $"CF6 (a value is at least {HeaderSize + 2} bytes; this one is {value.Length})");
        }

        var kind = (DocumentChangeKind)value[KindOffset];
        if (kind is not DocumentChangeKind.Stored and not DocumentChangeKind.Deleted)
        {
            throw Corrupt(storePath, key, $"CF6 (kind is 1 or 2; this one is {(int)kind})");
        }

        var ticks = BinaryPrimitives.ReadInt64LittleEndian(value[TicksOffset..]);
        if (ticks < 0 || ticks > DateTime.MaxValue.Ticks)
        {
            throw Corrupt(storePath, key, $"CF6 (ticks {ticks} are outside DateTime's range)");
        }

        int collectionLength = value[CollectionLengthOffset];
        var idLength = value.Length - HeaderSize - collectionLength;
        if (collectionLength is < 1 or > DocumentLimits.MaxCollectionNameBytes || idLength is < 1 or > DocumentLimits.MaxIdBytes)
        {
            throw Corrupt(storePath, key, $"CF6 (a collection name of 1..{DocumentLimits.MaxCollectionNameBytes} bytes and an id of 1..{DocumentLimits.MaxIdBytes} bytes; this entry has {collectionLength} and {idLength})");
        }

        return new Entry(version, kind, ticks, value.Slice(HeaderSize, collectionLength), value[(HeaderSize + collectionLength)..]);
    }

    public static CorruptionException Corrupt(string storePath, ReadOnlySpan<byte> key, string rule) =>
        new(storePath, 0, $"tree '{DocumentTrees.Changes}' key {Convert.ToHexString(key)} breaks {rule}.");

    /// <summary>The document's JSON when its record still holds <paramref name="version"/>; null otherwise.</summary>
    private static ReadOnlyMemory<byte>? JsonOf(Tree? docs, ReadOnlySpan<byte> idBytes, string id, long version, string storePath)
    {
        if (docs == null || !docs.TryGet(idBytes, out var record))
        {
            return null;
        }

        var header = DocumentRecord.ReadHeader(record, id, storePath);
        if (header.Version != version)
        {
            return null;
        }

        var json = new byte[header.JsonLength];
        DocumentRecord.CopyJson(record, header, json, id, storePath);
        return json;
    }
}
