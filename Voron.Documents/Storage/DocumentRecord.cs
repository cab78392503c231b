using System.Buffers;
using System.Buffers.Binary;
using System.Text;
using K4os.Compression.LZ4;

namespace Voron.Documents.Storage;

// FORMAT: document record, version 1 — the value of one entry of the "@docs" tree (the key is
// the document id). Metadata first, then the UTF-8 JSON, LZ4-compressed when that pays.
//
//   0        1       2      3          4         12              20            24           24+C
//   +--------+-------+------+----------+---------+---------------+-------------+------------+------------...
//   | format | flags |  C   | reserved | version | last-modified | json length | collection | body
//   +--------+-------+------+----------+---------+---------------+-------------+------------+------------...
//
//   OFFSET  SIZE  NAME          MEANING
//   0       1     format        RecordFormat (1)
//   1       1     flags         bit 0 (Compressed): the body is one LZ4 block (the public LZ4 block
//                               format, K4os.Compression.LZ4); bit 1 (Expires, store format 2): the
//                               expires field follows the collection name; the other bits are 0
//   2       1     C             the collection name's length in bytes, 1..128
//   3       1     reserved      0
//   4       8     version       int64 LE: the document's version, >= 1 (unique across the store)
//   12      8     last-modified int64 LE: UTC ticks (DateTime.Ticks) of the save that wrote it
//   20      4     json length   int32 LE: the JSON's length uncompressed, 2..256 MiB
//   24      C     collection    the collection name, UTF-8
//   24+C    8     expires       only when flags has Expires (store format 2): int64 LE, the UTC ticks
//                               (DateTime.Ticks) at and after which the document counts as absent
//   24+C+E  rest  body          the JSON (json length bytes), or an LZ4 block decoding to exactly json
//                               length bytes; E is 8 with Expires, else 0
//
// No checksum of its own: every store page carries a CRC32C that Voron.Core checks, so these
// rules catch records written wrong, not disk damage. A record is valid iff
//   DR1. it is at least 24 + C + E bytes long;
//   DR2. format is RecordFormat;
//   DR3. flags has no bit but Compressed and Expires, and reserved is 0 (a reader of store format 1
//       knows no Expires bit and so refuses a record that carries an expiry);
//   DR4. C is 1..128 and the collection name is valid UTF-8;
//   DR5. version >= 1;
//   DR6. last-modified is 0..DateTime.MaxValue.Ticks;
//   DR7. json length is 2..DocumentLimits.MaxDocumentBytesCeiling;
//   DR8. uncompressed: the body is exactly json length bytes; compressed: the body is shorter than
//       json length and decodes to exactly json length bytes;
//   DR9. with Expires, expires is 1..DateTime.MaxValue.Ticks.
// A record breaking a rule raises CorruptionException (store, offset in the record, rule, id).
// The JSON was validated as one object when it was stored and is not parsed again on read.
//
// Compression rule: a body of at least DocumentStoreOptions.CompressionThresholdBytes is
// LZ4-compressed and kept so only when the block saves at least an eighth of the bytes.
//
// Compatibility: a reader refuses any other format byte (DR2): one above RecordFormat as
// FormatVersionException (a newer build wrote it), 0 as CorruptionException. A new format gets a
// new number; old records stay readable by the reader of their number.

/// <summary>Builds and reads document records; see the FORMAT block above.</summary>
internal static class DocumentRecord
{
    public const byte RecordFormat = 1;
    public const byte Compressed = 1;
    public const byte Expires = 2;
    public const int ExpiresSize = 8;

    public const int FormatOffset = 0;
    public const int FlagsOffset = 1;
    public const int CollectionLengthOffset = 2;
    public const int ReservedOffset = 3;
    public const int VersionOffset = 4;
    public const int LastModifiedOffset = 12;
    public const int JsonLengthOffset = 20;
    public const int HeaderSize = 24;

    /// <summary>
    /// A record for <paramref name="json"/> in <paramref name="collection"/>, with version and
    /// last-modified zero: <see cref="Stamp"/> sets them inside the transaction that writes it.
    /// <paramref name="expiresTicks"/> (UTC ticks, 0: none) sets the Expires flag and field.
    /// </summary>
    public static byte[] Build(ReadOnlySpan<byte> collection, ReadOnlySpan<byte> json, int compressionThreshold, long expiresTicks = 0)
    {
        if (expiresTicks < 0 || expiresTicks > DateTime.MaxValue.Ticks)
        {
            throw new ArgumentOutOfRangeException(nameof(expiresTicks), expiresTicks, "DR9: expiry ticks are 0 (none) to DateTime.MaxValue.Ticks.");
        }

        if (compressionThreshold > 0 && json.Length >= compressionThreshold)
        {
            var rented = ArrayPool<byte>.Shared.Rent(LZ4Codec.MaximumOutputSize(json.Length));
            try
            {
                var length = LZ4Codec.Encode(json, rented.AsSpan(0, LZ4Codec.MaximumOutputSize(json.Length)), LZ4Level.L00_FAST);
                if (length > 0 && length <= json.Length - (json.Length / 8))
                {
                    return Assemble(collection, json.Length, rented.AsSpan(0, length), Compressed, expiresTicks);
                }
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }

        return Assemble(collection, json.Length, json, 0, expiresTicks);
    }

    private static byte[] Assemble(ReadOnlySpan<byte> collection, int jsonLength, ReadOnlySpan<byte> body, byte flags, long expiresTicks)
    {
        var expiresSize = expiresTicks != 0 ? ExpiresSize : 0;
        var record = new byte[HeaderSize + collection.Length + expiresSize + body.Length];
        record[FormatOffset] = RecordFormat;
        record[FlagsOffset] = (byte)(flags | (expiresTicks != 0 ? Expires : 0));
        record[CollectionLengthOffset] = checked((byte)collection.Length);
        BinaryPrimitives.WriteInt32LittleEndian(record.AsSpan(JsonLengthOffset), jsonLength);
        collection.CopyTo(record.AsSpan(HeaderSize));
        if (expiresTicks != 0)
        {
            BinaryPrimitives.WriteInt64LittleEndian(record.AsSpan(HeaderSize + collection.Length), expiresTicks);
        }

        body.CopyTo(record.AsSpan(HeaderSize + collection.Length + expiresSize));
        return record;
    }

    /// <summary>The offset of the body of a record <see cref="Build"/> made (not yet stamped, so not one <see cref="ReadHeader"/> takes: DR5).</summary>
    public static int BuiltBodyOffset(ReadOnlySpan<byte> record) =>
        HeaderSize + record[CollectionLengthOffset] + ((record[FlagsOffset] & Expires) != 0 ? ExpiresSize : 0);

    /// <summary>The expiry (UTC ticks, 0: none) of a record <see cref="Build"/> made.</summary>
    public static long BuiltExpiresTicks(ReadOnlySpan<byte> record) =>
        (record[FlagsOffset] & Expires) != 0 ? BinaryPrimitives.ReadInt64LittleEndian(record[(HeaderSize + record[CollectionLengthOffset])..]) : 0;

    /// <summary>Sets the version and last-modified time (DR5, DR6) of a built record.</summary>
    public static void Stamp(Span<byte> record, long version, long ticks)
    {
        BinaryPrimitives.WriteInt64LittleEndian(record[VersionOffset..], version);
        BinaryPrimitives.WriteInt64LittleEndian(record[LastModifiedOffset..], ticks);
    }

    /// <summary>Reads and validates a record's header (DR1..DR7, DR9, and DR8's length rule when uncompressed).</summary>
    public static RecordHeader ReadHeader(ReadOnlySpan<byte> record, string id, string storePath)
    {
        if (record.Length < HeaderSize)
        {
            throw Corrupt(storePath, id, 0, $"DR1: {record.Length} bytes, shorter than the {HeaderSize}-byte header");
        }

        if (record[FormatOffset] > RecordFormat)
        {
            throw new FormatVersionException(storePath, record[FormatOffset], RecordFormat,
                $"Document '{id}' was written by a newer Voron build; open the store with that build.");
        }

        if (record[FormatOffset] != RecordFormat)
        {
            throw Corrupt(storePath, id, FormatOffset, $"DR2: format {record[FormatOffset]}, expected {RecordFormat}");
        }

        var flags = record[FlagsOffset];
        if ((flags & ~(Compressed | Expires)) != 0 || record[ReservedOffset] != 0)
        {
            throw Corrupt(storePath, id, FlagsOffset, $"DR3: flags 0x{flags:X2}, reserved {record[ReservedOffset]}");
        }

        int collectionLength = record[CollectionLengthOffset];
        if (collectionLength is < 1 or > DocumentLimits.MaxCollectionNameBytes || record.Length < HeaderSize + collectionLength)
        {
            throw Corrupt(storePath, id, CollectionLengthOffset, $"DR1/DR4: collection length {collectionLength} in a record of {record.Length} bytes");
        }

        if (!System.Text.Unicode.Utf8.IsValid(record.Slice(HeaderSize, collectionLength)))
        {
            throw Corrupt(storePath, id, HeaderSize, "DR4: the collection name is not valid UTF-8");
        }

        var version = BinaryPrimitives.ReadInt64LittleEndian(record[VersionOffset..]);
        if (version < 1)
        {
            throw Corrupt(storePath, id, VersionOffset, $"DR5: version {version}");
        }

        var ticks = BinaryPrimitives.ReadInt64LittleEndian(record[LastModifiedOffset..]);
        if (ticks < 0 || ticks > DateTime.MaxValue.Ticks)
        {
            throw Corrupt(storePath, id, LastModifiedOffset, $"DR6: last-modified ticks {ticks}");
        }

        var jsonLength = BinaryPrimitives.ReadInt32LittleEndian(record[JsonLengthOffset..]);
        if (jsonLength is < 2 or > DocumentLimits.MaxDocumentBytesCeiling)
        {
            throw Corrupt(storePath, id, JsonLengthOffset, $"DR7: json length {jsonLength}");
        }

        long expires = 0;
        var bodyOffset = HeaderSize + collectionLength;
        if ((flags & Expires) != 0)
        {
            if (record.Length < bodyOffset + ExpiresSize)
            {
                throw Corrupt(storePath, id, bodyOffset, $"DR1: {record.Length} bytes, shorter than the header, collection and expiry field");
            }

            expires = BinaryPrimitives.ReadInt64LittleEndian(record[bodyOffset..]);
            if (expires < 1 || expires > DateTime.MaxValue.Ticks)
            {
                throw Corrupt(storePath, id, bodyOffset, $"DR9: expiry ticks {expires}");
            }

            bodyOffset += ExpiresSize;
        }

        var bodyLength = record.Length - bodyOffset;
        var compressed = (flags & Compressed) != 0;
        if (compressed ? bodyLength >= jsonLength : bodyLength != jsonLength)
        {
            throw Corrupt(storePath, id, bodyOffset, $"DR8: a {(compressed ? "compressed" : "plain")} body of {bodyLength} bytes for {jsonLength} bytes of JSON");
        }

        return new RecordHeader(version, ticks, compressed, collectionLength, jsonLength, bodyOffset, expires);
    }

    /// <summary>Copies (or decodes, DR8) the JSON of a record into <paramref name="destination"/>, exactly <see cref="RecordHeader.JsonLength"/> bytes.</summary>
    public static void CopyJson(ReadOnlySpan<byte> record, in RecordHeader header, Span<byte> destination, string id, string storePath)
    {
        var body = record[header.BodyOffset..];
        if (!header.Compressed)
        {
            body.CopyTo(destination);
            return;
        }

        var decoded = LZ4Codec.Decode(body, destination[..header.JsonLength]);
        if (decoded != header.JsonLength)
        {
            throw Corrupt(storePath, id, header.BodyOffset, $"DR8: the LZ4 body decodes to {decoded} bytes, not {header.JsonLength}");
        }
    }

    /// <summary>
    /// The JSON of a record: the body itself when it is stored plain (valid while the record's
    /// span is), else decoded into <paramref name="rented"/> (a pooled array the caller returns).
    /// </summary>
    public static ReadOnlySpan<byte> Json(ReadOnlySpan<byte> record, in RecordHeader header, ref byte[]? rented, string id, string storePath)
    {
        if (!header.Compressed)
        {
            return record[header.BodyOffset..];
        }

        if (rented == null || rented.Length < header.JsonLength)
        {
            if (rented != null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }

            rented = ArrayPool<byte>.Shared.Rent(header.JsonLength);
        }

        CopyJson(record, header, rented, id, storePath);
        return rented.AsSpan(0, header.JsonLength);
    }

    /// <summary>The record's collection name bytes.</summary>
    public static ReadOnlySpan<byte> Collection(ReadOnlySpan<byte> record, in RecordHeader header) =>
        record.Slice(HeaderSize, header.CollectionLength);

    public static string CollectionName(ReadOnlySpan<byte> record, in RecordHeader header) =>
        Encoding.UTF8.GetString(Collection(record, header));

    private static CorruptionException Corrupt(string storePath, string id, int offset, string rule) =>
        new(storePath, offset, $"document record of '{id}' in tree '{DocumentTrees.Documents}' breaks {rule} (the offset is within the record).");
}
