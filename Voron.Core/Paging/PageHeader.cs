using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace Voron.Paging;

// FORMAT: page header, version 1 — the first 64 bytes of every page of the data file.
//
// The data file is an array of 8 KiB pages; page N starts at byte N * 8192. Page 0 is the file's
// identity page (see DataFileIdentity). A page is either a single page (tree leaf, tree branch,
// free-space page) or the first page of an overflow run of ceil((64 + OverflowSize) / 8192)
// consecutive pages holding one large value; the other pages of a run have no header.
//
//   +---------------------------------------------------------------+
//   | PageNumber (8) | Checksum (4) | Flags (1) | TreeFlags (1) | ... |
//   +---------------------------------------------------------------+
//
//   OFFSET SIZE NAME          MEANING
//   0      8    PageNumber    the page's own number (little-endian); catches misdirected writes
//   8      4    Checksum      CRC32C of the whole page or run, computed with this field as zero
//   12     1    Flags         PageFlags: what the page is
//   13     1    Reserved      zero
//   14     2    Lower         tree pages: end of the slot array (see Trees/TreePage.cs)
//   16     2    Upper         tree pages: start of the node area
//   18     2    Holes         tree pages: bytes of the node area no node body covers (Trees/TreePage.cs, B8)
//   20     4    OverflowSize  overflow runs: bytes of value stored after the header
//   24     40   Reserved      zero; owned by later versions of the subsystem that owns the page
//
// The checksum covers every byte of the page (or of the whole overflow run) with bytes 8..11 read
// as zero, so a page written to the wrong place, a torn page (old and new sectors mixed) and
// random garbage are all detected. It is computed when a write transaction commits (so journal
// records carry it) and verified the first time a page is read from the data file after the file
// was opened or the page was rewritten.
//
// Validity rules: a page read from the data file is valid iff
//   P1. PageNumber equals the page's position;
//   P2. Flags is exactly one of the known PageFlags values;
//   P3. for an overflow run, 0 <= OverflowSize <= Constants.MaxValueSize and 64 + OverflowSize
//       fits in the file from this page on;
//   P4. the checksum matches.
// A page that breaks any rule raises CorruptionException naming the data file, the offset and
// the rule. Compatibility: readers refuse files whose header-file format version differs
// (Header/HeaderFile.cs); new fields take reserved bytes and bump that version.

/// <summary>What a page holds (byte 12 of the page header).</summary>
[Flags]
internal enum PageFlags : byte
{
    None = 0,
    Leaf = 1,
    Branch = 2,
    Overflow = 4,
    FreeSpace = 8,
    FileIdentity = 16,
}

/// <summary>Offsets and accessors of the page header; see the FORMAT block above.</summary>
internal static class PageHeader
{
    public const int Size = 64;
    public const int PageNumberOffset = 0;
    public const int ChecksumOffset = 8;
    public const int FlagsOffset = 12;
    public const int LowerOffset = 14;
    public const int UpperOffset = 16;
    public const int HolesOffset = 18;
    public const int OverflowSizeOffset = 20;

    public static long GetPageNumber(ReadOnlySpan<byte> page) => BinaryPrimitives.ReadInt64LittleEndian(page);

    public static void SetPageNumber(Span<byte> page, long pageNumber) => BinaryPrimitives.WriteInt64LittleEndian(page, pageNumber);

    public static uint GetChecksum(ReadOnlySpan<byte> page) => BinaryPrimitives.ReadUInt32LittleEndian(page[ChecksumOffset..]);

    public static PageFlags GetFlags(ReadOnlySpan<byte> page) => (PageFlags)page[FlagsOffset];

    public static void SetFlags(Span<byte> page, PageFlags flags) => page[FlagsOffset] = (byte)flags;

    public static ushort GetLower(ReadOnlySpan<byte> page) => BinaryPrimitives.ReadUInt16LittleEndian(page[LowerOffset..]);

    public static void SetLower(Span<byte> page, ushort value) => BinaryPrimitives.WriteUInt16LittleEndian(page[LowerOffset..], value);

    public static ushort GetUpper(ReadOnlySpan<byte> page) => BinaryPrimitives.ReadUInt16LittleEndian(page[UpperOffset..]);

    public static void SetUpper(Span<byte> page, ushort value) => BinaryPrimitives.WriteUInt16LittleEndian(page[UpperOffset..], value);

    public static ushort GetHoles(ReadOnlySpan<byte> page) => BinaryPrimitives.ReadUInt16LittleEndian(page[HolesOffset..]);

    public static void SetHoles(Span<byte> page, ushort value) => BinaryPrimitives.WriteUInt16LittleEndian(page[HolesOffset..], value);

    public static int GetOverflowSize(ReadOnlySpan<byte> page) => BinaryPrimitives.ReadInt32LittleEndian(page[OverflowSizeOffset..]);

    public static void SetOverflowSize(Span<byte> page, int size) => BinaryPrimitives.WriteInt32LittleEndian(page[OverflowSizeOffset..], size);

    /// <summary>How many pages an overflow run holding <paramref name="valueSize"/> bytes takes.</summary>
    public static int OverflowPageCount(long valueSize) => checked((int)((Size + valueSize + Constants.PageSize - 1) / Constants.PageSize));

    /// <summary>CRC32C of the page or run with the checksum field read as zero.</summary>
    public static uint ComputeChecksum(ReadOnlySpan<byte> run)
    {
        // Bytes 0..7 (the page number) and 12..15 are whole 4- and 8-byte words; the rest is a
        // multiple of 8 bytes because runs are whole pages.
        uint crc = 0xFFFFFFFF;
        crc = System.Numerics.BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(run));
        crc = System.Numerics.BitOperations.Crc32C(crc, 0u);
        crc = System.Numerics.BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt32LittleEndian(run[12..]));
        return ~Crc32C.Append(crc, run[16..]);
    }

    /// <summary>Writes the checksum of the page or run into its header.</summary>
    public static void StampChecksum(Span<byte> run) =>
        BinaryPrimitives.WriteUInt32LittleEndian(run[ChecksumOffset..], ComputeChecksum(run));

    /// <summary>
    /// The checksum of single page <paramref name="current"/> from <paramref name="previous"/>, an
    /// earlier version of the same page whose checksum is stamped, at the cost of a compare of
    /// the two and a CRC of the 64-byte blocks that differ, not a CRC of the whole page.
    /// </summary>
    /// <remarks>
    /// CRC32C without its initial and final inversions is linear over equal lengths, so
    /// checksum(current) = checksum(previous) ^ crc(previous XOR current); the XOR is zero but in
    /// the changed blocks, and a run of zero blocks only moves the register (Crc32C.ShiftByBlocks).
    /// The checksum field itself counts as zero in both. A previous version whose stamp is wrong
    /// passes the same error on (the difference is kept), so damage is still detected.
    /// </remarks>
    public static uint UpdatedChecksum(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current)
    {
        if (previous.Length != Constants.PageSize || current.Length != Constants.PageSize)
        {
            throw new ArgumentException("An updated checksum is for single pages; a run is checksummed whole.", nameof(current));
        }

        var before = MemoryMarshal.Cast<byte, ulong>(previous);
        var after = MemoryMarshal.Cast<byte, ulong>(current);
        const int wordsPerBlock = Crc32C.ZeroBlock / sizeof(ulong);
        uint delta = 0;
        var zeroBlocks = 0;
        for (var block = 0; block < Constants.PageSize / Crc32C.ZeroBlock; block++)
        {
            var at = block * Crc32C.ZeroBlock;
            if (previous.Slice(at, Crc32C.ZeroBlock).SequenceEqual(current.Slice(at, Crc32C.ZeroBlock)))
            {
                zeroBlocks++;
                continue;
            }

            if (zeroBlocks > 0 && delta != 0)
            {
                delta = Crc32C.ShiftByBlocks(delta, zeroBlocks);
            }

            zeroBlocks = 0;
            for (var w = block * wordsPerBlock; w < (block + 1) * wordsPerBlock; w++)
            {
                var x = before[w] ^ after[w];
                if (w == ChecksumOffset / sizeof(ulong))
                {
                    x &= 0xFFFF_FFFF_0000_0000UL; // bytes 8..11, the checksum, read as zero (little-endian)
                }

                delta = System.Numerics.BitOperations.Crc32C(delta, x);
            }
        }

        if (zeroBlocks > 0 && delta != 0)
        {
            delta = Crc32C.ShiftByBlocks(delta, zeroBlocks);
        }

        return GetChecksum(previous) ^ delta;
    }
}
