using System.Buffers;
using System.Buffers.Binary;
using System.Text;
using System.Text.Unicode;
using Voron.Documents.Storage;

namespace Voron.Documents.Subscriptions;

// FORMAT: subscription record, part of document store layout version 2 — one entry of the
// "@docs.subs" tree per subscription (DocumentStore.Subscriptions). The tree is created by the
// first CreateAsync; a store without it has no subscriptions.
//
//   key:   the subscription's name, UTF-8, 1..MaxNameBytes bytes
//
//   0          8             16
//   +----------+-------------+------------...
//   | position | incarnation | collection
//   +----------+-------------+------------...
//
//   OFFSET  SIZE  NAME           MEANING
//   0       8     position       int64 LE: the acknowledged position, a document version (a
//                                position in the change log): every change with a version at or
//                                below it was handed to a worker and acknowledged (SU1)
//   8       8     incarnation    int64 LE: a random number drawn by CreateAsync; with the name,
//                                the subscription's identity (a worker of a deleted subscription
//                                does not take over one created again under its name, however
//                                soon: a clock could give both the same ticks)
//   16      rest  collection     the collection the subscription follows, UTF-8; empty: all
//
// No checksum of its own (store pages carry a CRC32C). A record is valid iff
//   SU5. the key is 1..MaxNameBytes bytes of valid UTF-8 without control characters;
//   SU6. the value is at least 16 bytes long;
//   SU7. position >= 0 (the incarnation may be any value);
//   SU8. the collection is empty, or a valid collection name (1..128 bytes of UTF-8, no '/', no
//        control characters).
// A record breaking a rule raises CorruptionException (store, the rule, the name).
//
// Compatibility: the tree is new in layout version 2 (Storage/DocumentTrees.cs); a store of
// version 1 has no subscriptions and gets the tree when the first one is created.

/// <summary>A decoded subscription record (see the FORMAT block above).</summary>
internal readonly record struct SubscriptionRecord(long Position, long Incarnation, string? Collection)
{
    public const string Tree = "@docs.subs";
    public const int MaxNameBytes = 200;
    public const int PositionOffset = 0;
    public const int IncarnationOffset = 8;
    public const int CollectionOffset = 16;

    /// <summary>The UTF-8 bytes of a valid subscription name: 1..<see cref="MaxNameBytes"/> bytes of well-formed UTF-16, no control characters.</summary>
    public static byte[] NameBytes(string name, string paramName = "name")
    {
        ArgumentNullException.ThrowIfNull(name, paramName);
        var bytes = new byte[Encoding.UTF8.GetMaxByteCount(name.Length)];
        if (name.Length == 0 || name.Any(char.IsControl) ||
            Utf8.FromUtf16(name, bytes, out _, out var written, replaceInvalidSequences: false) != OperationStatus.Done ||
            written > MaxNameBytes)
        {
            throw new ArgumentException($"Subscription name '{name}' is not valid: use 1 to {MaxNameBytes} UTF-8 bytes of well-formed text without control characters.", paramName);
        }

        return bytes.AsSpan(0, written).ToArray();
    }

    /// <summary>A new subscription's incarnation: random, so a subscription created again under a name is another one.</summary>
    public static long NewIncarnation() => BinaryPrimitives.ReadInt64LittleEndian(System.Security.Cryptography.RandomNumberGenerator.GetBytes(8));

    public static byte[] Encode(long position, long incarnation, ReadOnlySpan<byte> collection)
    {
        var value = new byte[CollectionOffset + collection.Length];
        BinaryPrimitives.WriteInt64LittleEndian(value.AsSpan(PositionOffset), position);
        BinaryPrimitives.WriteInt64LittleEndian(value.AsSpan(IncarnationOffset), incarnation);
        collection.CopyTo(value.AsSpan(CollectionOffset));
        return value;
    }

    /// <summary>Reads and validates one record (SU5..SU8).</summary>
    public static SubscriptionRecord Decode(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, string storePath)
    {
        var name = DecodeName(key, storePath);
        if (value.Length < CollectionOffset)
        {
            throw Corrupt(storePath, name, $"SU6: the value is {value.Length} bytes; a record takes at least {CollectionOffset}.");
        }

        var position = BinaryPrimitives.ReadInt64LittleEndian(value[PositionOffset..]);
        var incarnation = BinaryPrimitives.ReadInt64LittleEndian(value[IncarnationOffset..]);
        if (position < 0)
        {
            throw Corrupt(storePath, name, $"SU7: position {position} is out of range.");
        }

        var collection = value[CollectionOffset..];
        if (collection.IsEmpty)
        {
            return new SubscriptionRecord(position, incarnation, null);
        }

        if (collection.Length > DocumentLimits.MaxCollectionNameBytes || !TryDecode(collection, out var text) ||
            text.Contains('/', StringComparison.Ordinal) || text.Any(char.IsControl))
        {
            throw Corrupt(storePath, name, $"SU8: its collection ({collection.Length} bytes) is not a valid collection name.");
        }

        return new SubscriptionRecord(position, incarnation, text);
    }

    /// <summary>The name a key holds (SU5).</summary>
    public static string DecodeName(ReadOnlySpan<byte> key, string storePath)
    {
        if (key.Length is 0 or > MaxNameBytes || !TryDecode(key, out var name) || name.Any(char.IsControl))
        {
            throw new CorruptionException(storePath, 0, $"tree '{Tree}' holds a key of {key.Length} bytes that is not a valid subscription name (SU5).");
        }

        return name;
    }

    private static bool TryDecode(ReadOnlySpan<byte> utf8, out string text)
    {
        var chars = new char[utf8.Length];
        if (Utf8.ToUtf16(utf8, chars, out _, out var written, replaceInvalidSequences: false) != OperationStatus.Done)
        {
            text = "";
            return false;
        }

        text = new string(chars, 0, written);
        return true;
    }

    private static CorruptionException Corrupt(string storePath, string name, string reason) =>
        new(storePath, 0, $"tree '{Tree}': subscription '{name}': {reason}");
}
