using System.Buffers.Binary;
using System.Text;

namespace Voron.PageFiles;

// FORMAT: page file, version 1 — a named, byte-addressed file kept inside the store (the SQLite
// VFS keeps each SQLite database in one). Its bytes live in raw 8 KiB store pages ("blocks"); a
// named tree maps block numbers to those pages and carries the file's length.
//
//   catalog (root tree)                 page-file tree "$pagefile/<name>"
//   "$pagefile/orders" -> TreeState     [00]                      -> metadata (32 bytes)
//                                       [block 0 as 8 bytes, BE]  -> entry (16): page 4711, CRC
//                                       [block 1 as 8 bytes, BE]  -> entry (16): page 4712, CRC
//                                       ...               (no entry: the block is a hole, zeros)
//
//   store page 4711: the file's bytes [0, 8192) exactly, no page header (a "raw" page)
//
// Block b holds file bytes [b * 8192, (b + 1) * 8192). A raw page has no header: its checksum
// and its owner live in its map entry, so SQLite's 8 KiB pages map one to one onto store pages
// (other SQLite page sizes work too: a 4 KiB page shares a block, a 64 KiB one spans eight).
// Raw pages are modified in place like any page (copy-on-write in the transaction, MVCC in the
// page table), so the journal stores only the bytes a write changed (Journal/Diff/PageDiff.cs).
//
// Metadata value (key: the single byte 0x00, which sorts before every block key):
//   OFFSET SIZE NAME          MEANING
//   0      4    Version       1
//   4      4    BlockSize     8192 (Constants.PageSize)
//   8      8    Length        the file's length in bytes, >= 0
//   16     8    Sequence      opaque to the store: the last writer's commit sequence (the SQLite
//                             VFS checks it to refuse a commit whose base was dropped)
//   24     8    Reserved      zero
//
// Block entry value (key: the block number, 8 bytes big-endian, so keys sort by block):
//   OFFSET SIZE NAME          MEANING
//   0      8    Page          the raw store page holding the block, > 0
//   8      4    Checksum      CRC32C of the page's 8192 bytes
//   12     4    Reserved      zero
//
// In a sealed store (header format 4; encryption at rest, Sealing/SealFormat.cs) — the same tree
// and metadata (Version 1: the store's header format says entries are sealed ones), blocks sealed
// one by one by their writer with the pages subkey
// (PageSeal.SealBlock: AAD the page number and a block domain byte, SL3), in place: the raw page
// holds the 8192 bytes of ciphertext, and the nonce and tag, which a headerless page has no room
// for, live in the entry, which grows to 44 bytes:
//   OFFSET SIZE NAME          MEANING
//   0      8    Page          the raw store page holding the sealed block, > 0
//   8      4    Checksum      CRC32C of the page's 8192 bytes as stored (sealed): PF3 without the key
//   12     4    Reserved      zero
//   16     12   Nonce         the block's seal (SL1)
//   28     16   Tag           the AEAD tag of the block
// The entry lives in a tree page, itself sealed (PG7), so a nonce or tag cannot be changed or
// swapped without breaking that page's seal. A block is sealed again, with a new nonce, at every
// write to it (PF6); the writing transaction keeps the block's plaintext to read its own writes.
//
// Validity rules: a page file is valid iff
//   PF1. its metadata exists, Version is 1, BlockSize is 8192 and Length >= 0;
//   PF2. every other key is 8 bytes, its block number b satisfies b * 8192 < Length, and its
//        value is 16 bytes (44 in a sealed store) with a Page inside the data file and a zero
//        Reserved field;
//   PF3. a block's page, read from the data file, has the entry's Checksum (checked the first
//        time the page is read after open or after the flusher rewrote it: PG3); in a sealed
//        store the block then opens with the entry's nonce and tag (SL7: else CorruptionException);
//   PF4. no page is the block of two entries, nor anything else (StorageEnvironment.CheckIntegrity
//        claims every block's page).
//   PF5. (a sealed store) no page file of a sealed store is read or written in plaintext: every block
//        written is sealed before the write returns, and read blocks are opened (the opened bytes
//        are cached per nonce: OP1).
//   PF6. (a sealed store) a block is sealed again at each write with a nonce of its own (SL1), so the
//        journal and the data file only ever see ciphertext; the writer keeps the plaintext of the
//        blocks it changed for its own reads until it ends.
// Bytes that break a rule raise CorruptionException naming the data file, the page and the rule.
// Bytes past Length read as zeros; a block with no entry reads as zeros. Compatibility: a new
// field takes reserved bytes and bumps Version; readers refuse versions they do not know: a
// Version above 1 as FormatVersionException (a newer build wrote it), any other break of PF1 as
// CorruptionException.

/// <summary>Keys, values and names of page files; see the FORMAT block above.</summary>
internal static class PageFileFormat
{
    public const int Version = 1;

    /// <summary>An entry of a sealed store's page file: page, checksum, reserved, nonce and tag (the FORMAT block above).</summary>
    public const int SealedEntrySize = 16 + Sealing.SealFormat.BlockSealSize;
    public const int BlockSize = Constants.PageSize;
    public const int MetadataSize = 32;
    public const int EntrySize = 16;
    public const int BlockKeySize = 8;

    /// <summary>Every page file's tree name starts with this; user trees should not.</summary>
    public const string TreePrefix = "$pagefile/";

    /// <summary>The longest page-file name in UTF-8 bytes (the tree name adds the prefix).</summary>
    public const int MaxNameBytes = Constants.MaxTreeNameSize - 10;

    public static ReadOnlySpan<byte> MetadataKey => [0];

    public static string TreeName(string name) => TreePrefix + name;

    public static bool IsPageFileTree(string treeName) => treeName.StartsWith(TreePrefix, StringComparison.Ordinal);

    /// <summary>Refuses names a page file cannot have: empty, too long, or with control characters.</summary>
    public static void ValidateName(string name)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        if (Encoding.UTF8.GetByteCount(name) > MaxNameBytes)
        {
            throw new ArgumentException($"Page file name '{name}' is longer than {MaxNameBytes} UTF-8 bytes.", nameof(name));
        }

        foreach (var c in name)
        {
            if (char.IsControl(c))
            {
                throw new ArgumentException($"Page file name '{name}' contains a control character.", nameof(name));
            }
        }
    }

    public static void WriteBlockKey(Span<byte> key, long block) => BinaryPrimitives.WriteInt64BigEndian(key, block);

    public static void WriteMetadata(Span<byte> value, long length, long sequence)
    {
        value[..MetadataSize].Clear();
        BinaryPrimitives.WriteInt32LittleEndian(value, Version);
        BinaryPrimitives.WriteInt32LittleEndian(value[4..], BlockSize);
        BinaryPrimitives.WriteInt64LittleEndian(value[8..], length);
        BinaryPrimitives.WriteInt64LittleEndian(value[16..], sequence);
    }

    /// <summary>Reads the metadata, checking PF1.</summary>
    public static (long Length, long Sequence) ReadMetadata(ReadOnlySpan<byte> value, string file, string name)
    {
        if (value.Length != MetadataSize)
        {
            throw Corrupt(file, name, $"rule PF1: metadata is {value.Length} bytes, expected {MetadataSize}");
        }

        var version = BinaryPrimitives.ReadInt32LittleEndian(value);
        var blockSize = BinaryPrimitives.ReadInt32LittleEndian(value[4..]);
        var length = BinaryPrimitives.ReadInt64LittleEndian(value[8..]);
        if (version > Version)
        {
            throw new FormatVersionException(file, version, Version,
                $"Page file '{name}' was written by a newer Voron build; open the store with that build.");
        }

        if (version != Version || blockSize != BlockSize || length < 0)
        {
            throw Corrupt(file, name, $"rule PF1: metadata says version {version}, block size {blockSize}, length {length} (expected version {Version}, block size {BlockSize}, length >= 0)");
        }

        return (length, BinaryPrimitives.ReadInt64LittleEndian(value[16..]));
    }

    public static void WriteEntry(Span<byte> value, long page, uint checksum)
    {
        BinaryPrimitives.WriteInt64LittleEndian(value, page);
        BinaryPrimitives.WriteUInt32LittleEndian(value[8..], checksum);
        BinaryPrimitives.WriteUInt32LittleEndian(value[12..], 0);
    }

    /// <summary>A sealed store's entry: <see cref="WriteEntry"/>, then the block's nonce and tag.</summary>
    public static void WriteSealedEntry(Span<byte> value, long page, uint checksum, ReadOnlySpan<byte> nonceAndTag)
    {
        WriteEntry(value, page, checksum);
        nonceAndTag.CopyTo(value[EntrySize..SealedEntrySize]);
    }

    /// <summary>Reads a block entry of a store that is sealed or not; <paramref name="nonceAndTag"/> is empty when it is not.</summary>
    public static (long Page, uint Checksum) ReadEntry(ReadOnlySpan<byte> value, string file, string name, long block, bool sealedStore, out ReadOnlySpan<byte> nonceAndTag)
    {
        var expected = sealedStore ? SealedEntrySize : EntrySize;
        if (value.Length != expected)
        {
            throw Corrupt(file, name, $"rule PF2: the entry of block {block} is {value.Length} bytes, expected {expected}");
        }

        nonceAndTag = sealedStore ? value[EntrySize..SealedEntrySize] : default;
        return ReadEntry(value[..EntrySize], file, name, block);
    }

    /// <summary>Reads a block entry, checking the value half of PF2 (the page's range is checked when it is read).</summary>
    public static (long Page, uint Checksum) ReadEntry(ReadOnlySpan<byte> value, string file, string name, long block)
    {
        if (value.Length != EntrySize)
        {
            throw Corrupt(file, name, $"rule PF2: the entry of block {block} is {value.Length} bytes, expected {EntrySize}");
        }

        var page = BinaryPrimitives.ReadInt64LittleEndian(value);
        if (page <= 0 || BinaryPrimitives.ReadUInt32LittleEndian(value[12..]) != 0)
        {
            throw Corrupt(file, name, $"rule PF2: the entry of block {block} names page {page} with reserved bits set or a page number <= 0");
        }

        return (page, BinaryPrimitives.ReadUInt32LittleEndian(value[8..]));
    }

    /// <summary>Reads a key of the page-file tree as a block number, checking the key half of PF2.</summary>
    public static long ReadBlockKey(ReadOnlySpan<byte> key, string file, string name)
    {
        if (key.Length != BlockKeySize)
        {
            throw Corrupt(file, name, $"rule PF2: a key of {key.Length} bytes, expected {BlockKeySize}");
        }

        var block = BinaryPrimitives.ReadInt64BigEndian(key);
        if (block < 0)
        {
            throw Corrupt(file, name, $"rule PF2: negative block number {block}");
        }

        return block;
    }

    public static CorruptionException Corrupt(string file, string name, string reason) =>
        new(file, 0, $"page file '{name}': {reason}");
}
