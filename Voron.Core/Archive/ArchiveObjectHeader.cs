using System.Buffers.Binary;
using System.Security.Cryptography;

namespace Voron.Archive;

// FORMAT: archive object header, version 1. Every object the archive puts into an
// IArchiveDestination (a shipped journal file, a file of a shipped snapshot, a fork note) starts
// with these 160 bytes; the content follows unchanged (a journal file's bytes exactly as the
// local archive holds them, JA2), so a reader strips the header and has the original file.
//
//   +--------------------+---------------------------------------------+
//   | header (160 bytes) | content (ContentLength bytes)               |
//   +--------------------+---------------------------------------------+
//
// OFFSET SIZE NAME            MEANING
// 0      8    Magic           "VORONOBJ" read little-endian
// 8      2    FormatVersion   1
// 10     2    Kind            1 journal file, 2 snapshot file, 3 fork note (no content)
// 12     4    Reserved        zero
// 16     8    Lineage         the store id whose log this object belongs to (the key's first part)
// 24     8    Sequence        kind 1: the journal file's number; otherwise 0
// 32     8    FirstTx         kind 1: the first transaction of the file's records; kind 2: the snapshot's transaction S; kind 3: 0
// 40     8    LastTx          kind 1: the last transaction of the file's records; kind 2: S; kind 3: the fork transaction
// 48     8    LastCommitTime  when LastTx committed (UTC Unix ms; 0 = unknown)
// 56     8    ContentLength   the bytes after the header
// 64     32   Before          kind 1: the previous journal object's After (zeros for a lineage's first); otherwise zeros
// 96     32   After           SHA-256 over Before then the content
// 128    8    Parent          kind 3: the lineage this one forked from; otherwise 0
// 136    20   Reserved        zero
// 156    4    HeaderChecksum  CRC32C of bytes 0..155
//
// AO1. Before and After checksum the LOG, not the state: the journal holds page diffs and no
//      checksum of the whole store, and computing one would read every page at every release.
//      After = SHA-256(Before ‖ content), and a journal object's Before is its predecessor's
//      After (zeros for the lineage's first shipped file). A chain value names the exact journal
//      bytes from the lineage's first shipped file up to this one; replaying the same bytes onto
//      the same snapshot gives the same state, so "the state before" is identified as "the state
//      the predecessor's bytes produced", and a journal object that does not continue its
//      predecessor's chain is refused. A snapshot file's Before is zero and its After hashes its
//      content (the backup's own header and data-file checks cover the state).
// AO2. an object is valid iff: Magic and FormatVersion match, HeaderChecksum matches, Kind is 1..3,
//      Reserved fields are zero, FirstTx ≤ LastTx, ContentLength equals the object's length less
//      160, and SHA-256(Before ‖ content) equals After. A reader checks all of it before using a
//      byte of the content (ObjectArchive's restore does); anything else is corruption naming the key.
// AO3. two uploads of one key are the same object iff their headers are byte-equal (After covers
//      the content); a second, different upload is refused (ArchiveUpload).
// Compatibility: a reader refuses any other FormatVersion (checked after the header checksum): a
// higher one as FormatVersionException (a newer build archived it), 0 as corruption; a later
// version adds kinds or fields in the reserved bytes only with a new version number.

/// <summary>The header of an archived object (the FORMAT block above).</summary>
internal readonly record struct ArchiveObjectHeader(ArchiveObjectKind Kind, ulong Lineage, long Sequence, long FirstTx, long LastTx, long LastCommitTime,
    long ContentLength, byte[] Before, byte[] After, ulong Parent)
{
    public const int Size = 160;
    public const ulong Magic = 0x4A424F4E4F524F56; // "VORONOBJ" read little-endian
    public const ushort FormatVersion = 1;
    public const int MagicOffset = 0;
    public const int FormatVersionOffset = 8;
    public const int KindOffset = 10;
    public const int Reserved1Offset = 12;
    public const int LineageOffset = 16;
    public const int SequenceOffset = 24;
    public const int FirstTxOffset = 32;
    public const int LastTxOffset = 40;
    public const int LastCommitTimeOffset = 48;
    public const int ContentLengthOffset = 56;
    public const int BeforeOffset = 64;
    public const int AfterOffset = 96;
    public const int HashSize = 32;
    public const int ParentOffset = 128;
    public const int Reserved2Offset = 136;
    public const int Reserved2Size = 20;
    public const int HeaderChecksumOffset = 156;

    public static byte[] NoHash => new byte[HashSize];

    public byte[] Encode()
    {
        var bytes = new byte[Size];
        var span = bytes.AsSpan();
        BinaryPrimitives.WriteUInt64LittleEndian(span[MagicOffset..], Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(span[FormatVersionOffset..], FormatVersion);
        BinaryPrimitives.WriteUInt16LittleEndian(span[KindOffset..], (ushort)Kind);
        BinaryPrimitives.WriteUInt64LittleEndian(span[LineageOffset..], Lineage);
        BinaryPrimitives.WriteInt64LittleEndian(span[SequenceOffset..], Sequence);
        BinaryPrimitives.WriteInt64LittleEndian(span[FirstTxOffset..], FirstTx);
        BinaryPrimitives.WriteInt64LittleEndian(span[LastTxOffset..], LastTx);
        BinaryPrimitives.WriteInt64LittleEndian(span[LastCommitTimeOffset..], LastCommitTime);
        BinaryPrimitives.WriteInt64LittleEndian(span[ContentLengthOffset..], ContentLength);
        Before.CopyTo(span[BeforeOffset..]);
        After.CopyTo(span[AfterOffset..]);
        BinaryPrimitives.WriteUInt64LittleEndian(span[ParentOffset..], Parent);
        BinaryPrimitives.WriteUInt32LittleEndian(span[HeaderChecksumOffset..], Crc32C.Compute(span[..HeaderChecksumOffset]));
        return bytes;
    }

    /// <summary>AO2's header half: throws <see cref="CorruptionException"/> naming <paramref name="where"/>
    /// (the destination and key) when the bytes are not a valid header.</summary>
    public static ArchiveObjectHeader Decode(ReadOnlySpan<byte> bytes, string where)
    {
        if (bytes.Length < Size)
        {
            throw new CorruptionException(where, 0, $"AO2: the object has {bytes.Length} bytes, fewer than its {Size}-byte header");
        }

        if (BinaryPrimitives.ReadUInt64LittleEndian(bytes[MagicOffset..]) != Magic)
        {
            throw new CorruptionException(where, MagicOffset, "AO2: not an archive object (wrong magic): something else was written under the archive's keys");
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(bytes[HeaderChecksumOffset..]) != Crc32C.Compute(bytes[..HeaderChecksumOffset]))
        {
            throw new CorruptionException(where, HeaderChecksumOffset, "AO2: the object header's checksum does not match: the object is damaged");
        }

        var version = BinaryPrimitives.ReadUInt16LittleEndian(bytes[FormatVersionOffset..]);
        if (version > FormatVersion)
        {
            throw new FormatVersionException(where, version, FormatVersion,
                "A newer Voron build archived this object; restore with that build.");
        }

        if (version != FormatVersion)
        {
            throw new CorruptionException(where, FormatVersionOffset, $"AO2: archive object format version {version}; this build reads version {FormatVersion} only");
        }

        var kind = (ArchiveObjectKind)BinaryPrimitives.ReadUInt16LittleEndian(bytes[KindOffset..]);
        var header = new ArchiveObjectHeader(kind,
            BinaryPrimitives.ReadUInt64LittleEndian(bytes[LineageOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[SequenceOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[FirstTxOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[LastTxOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[LastCommitTimeOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[ContentLengthOffset..]),
            bytes.Slice(BeforeOffset, HashSize).ToArray(),
            bytes.Slice(AfterOffset, HashSize).ToArray(),
            BinaryPrimitives.ReadUInt64LittleEndian(bytes[ParentOffset..]));
        if (kind is < ArchiveObjectKind.JournalFile or > ArchiveObjectKind.ForkNote ||
            BinaryPrimitives.ReadUInt32LittleEndian(bytes[Reserved1Offset..]) != 0 || bytes.Slice(Reserved2Offset, Reserved2Size).ContainsAnyExcept((byte)0) ||
            header.FirstTx > header.LastTx || header.ContentLength < 0)
        {
            throw new CorruptionException(where, 0, $"AO2: the object header's fields are invalid (kind {(int)kind}, transactions {header.FirstTx}..{header.LastTx}, " +
                $"content length {header.ContentLength})");
        }

        return header;
    }

    /// <summary>After (AO1): SHA-256 over <paramref name="before"/> and then the content read from <paramref name="content"/>.</summary>
    public static async Task<byte[]> HashAsync(byte[] before, Stream content, CancellationToken cancellationToken)
    {
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        hash.AppendData(before);
        var buffer = new byte[1 << 16];
        int read;
        while ((read = await content.ReadAsync(buffer, cancellationToken).ConfigureAwait(false)) > 0)
        {
            hash.AppendData(buffer, 0, read);
        }

        return hash.GetHashAndReset();
    }
}

/// <summary>What an archived object holds (the Kind field of its header).</summary>
internal enum ArchiveObjectKind : ushort
{
    JournalFile = 1,
    SnapshotFile = 2,
    ForkNote = 3,
}
