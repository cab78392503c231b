using System.Buffers.Binary;
using Voron.Paging;

namespace Voron.Allocation;

// FORMAT: free-space pages, version 2 — which pages of the data file are free, per 4 MiB section,
// and which pages wait to become free.
//
// The data file is cut into sections of 512 pages (4 MiB): section s holds pages [512 s, 512 s + 512).
// Free space is a bitmap with a free count per section, kept in pages of the data file and changed
// by write transactions like any other page (so it is journaled, recovered and synced with
// everything else). Pages freed by transaction T are first listed in the pending-free chain and
// set in the bitmap only by a later write transaction, once no live reader's snapshot is older
// than T (Allocation/PageAllocator.cs, A5). One directory page lists the bitmap pages and the
// chain; EnvironmentState.FreeSpaceRoot points to the directory.
//
//   directory ──► bitmap 0, bitmap 1, ...                (each covers 123 sections)
//       └──────► pending head ──Next──► ... ──► pending tail   (oldest entries first)
//
//   directory page (Flags = FreeSpace)
//   OFFSET SIZE   NAME          MEANING
//   0      64     PageHeader
//   64     4      Kind          3 = directory (1 was the version-1 directory)
//   68     4      Version       2
//   72     4      BitmapCount   bitmap pages listed, 0..MaxBitmapPages
//   76     4      PendingPages  pages in the pending chain, 0..; 0 iff PendingHead = 0
//   80     8      PendingHead   the oldest pending page, 0 = none
//   88     8      PendingTail   the newest pending page (entries are appended there), 0 = none
//   96     8*N    BitmapPages   page number of bitmap page k, for k = 0..BitmapCount-1
//
//   bitmap page (Flags = FreeSpace): sections [123 k, 123 k + 123), pages [62,976 k, 62,976 (k + 1))
//   OFFSET SIZE   NAME          MEANING
//   0      64     PageHeader
//   64     4      Kind          4 = bitmap (2 was the version-1 bitmap)
//   68     4      Index         k
//   72     2*123  FreeCounts    ushort per section j: how many of its bits are set, 0..512
//   318    2      Reserved      zero
//   320    64*123 Bits          section j's 512 bits at 320 + 64 j; bit i (byte i / 8, bit i % 8)
//                               set = page 512 (123 k + j) + i is free
//
//   pending page (Flags = FreeSpace)
//   OFFSET SIZE   NAME          MEANING
//   0      64     PageHeader
//   64     4      Kind          5 = pending
//   68     4      Count         entries, 1..MaxPendingEntries
//   72     8      Next          the next newer pending page, 0 = this is the tail
//   80     24*N   Entries       FreedBy (8): the transaction that freed the run
//                               FirstPage (8), PageCount (4), Reserved (4) = zero
//
// Validity (checked when the store opens, FreeSpaceSummary.Load; a violation is a
// CorruptionException naming the data file, the page's offset and the rule):
//   FS1. Each page's Kind matches its role (directory, bitmap, pending). A directory of Kind 1 or
//       Version != 2 was written by another format version: FormatVersionException.
//   FS2. BitmapCount <= MaxBitmapPages; every listed page and every pending page lies in
//       [1, NextPageNumber).
//   FS3. Bitmap page k has Index k.
//   FS4. Each FreeCount equals the number of set bits of its section (so <= 512).
//   FS5. No bit is set for page 0 or for a page at or above NextPageNumber.
//   FS6. The pending chain from PendingHead has exactly PendingPages pages, ends at PendingTail
//       (whose Next is 0), and each page has 1..MaxPendingEntries entries.
//   FS7. Every entry has PageCount >= 1, lies in [1, NextPageNumber), and FreedBy >= 1 never
//       decreases along the chain (entries are appended in commit order).
// StorageEnvironment.CheckIntegrity adds the rule no load can check cheaply:
//   FS8. Every page below NextPageNumber is owned exactly once: by a tree, by these structures,
//       by a pending entry, or by a set bit.
//
// Capacity: MaxBitmapPages = 1,012 bitmaps of 62,976 pages track the first ~486 GiB of the data
// file; allocating past that is refused with a clear error. A pending page holds 338 entries.
// Compatibility: version 1 (one bitmap of 64,960 pages per page, no counts, no pending chain) is
// not read; nothing but the free-space pages changed.

/// <summary>Offsets and constants of the free-space pages; see the FORMAT block above.</summary>
internal static class FreeSpaceFormat
{
    public const int Version = 2;
    public const int PagesPerSection = 512;
    public const int SectionBytes = PagesPerSection / 8;

    public const int KindOffset = 64;

    public const int VersionOffset = 68;
    public const int BitmapCountOffset = 72;
    public const int PendingPagesOffset = 76;
    public const int PendingHeadOffset = 80;
    public const int PendingTailOffset = 88;
    public const int ListOffset = 96;

    public const int IndexOffset = 68;
    public const int CountsOffset = 72;
    public const int SectionsPerBitmap = 123;
    public const int CountsReservedOffset = CountsOffset + 2 * SectionsPerBitmap;
    public const int BitsOffset = 320;
    public const int PagesPerBitmap = SectionsPerBitmap * PagesPerSection;

    public const int EntryCountOffset = 68;
    public const int NextOffset = 72;
    public const int EntriesOffset = 80;
    public const int EntrySize = 24;

    public const int V1DirectoryKind = 1;
    public const int V1BitmapKind = 2;
    public const int DirectoryKind = 3;
    public const int BitmapKind = 4;
    public const int PendingKind = 5;

    public const int MaxBitmapPages = (Constants.PageSize - ListOffset) / 8;
    public const int MaxPendingEntries = (Constants.PageSize - EntriesOffset) / EntrySize;

    public static int Kind(ReadOnlySpan<byte> page) => BinaryPrimitives.ReadInt32LittleEndian(page[KindOffset..]);

    public static int ReadInt32(ReadOnlySpan<byte> page, int offset) => BinaryPrimitives.ReadInt32LittleEndian(page[offset..]);

    public static long ReadInt64(ReadOnlySpan<byte> page, int offset) => BinaryPrimitives.ReadInt64LittleEndian(page[offset..]);

    public static void WriteInt32(Span<byte> page, int offset, int value) => BinaryPrimitives.WriteInt32LittleEndian(page[offset..], value);

    public static void WriteInt64(Span<byte> page, int offset, long value) => BinaryPrimitives.WriteInt64LittleEndian(page[offset..], value);

    /// <summary>The free count of section <paramref name="j"/> (0..122) of a bitmap page.</summary>
    public static int SectionCount(ReadOnlySpan<byte> bitmap, int j) =>
        BinaryPrimitives.ReadUInt16LittleEndian(bitmap[(CountsOffset + 2 * j)..]);

    public static void SetSectionCount(Span<byte> bitmap, int j, int count) =>
        BinaryPrimitives.WriteUInt16LittleEndian(bitmap[(CountsOffset + 2 * j)..], checked((ushort)count));

    /// <summary>The 64 bytes of bits of section <paramref name="j"/> of a bitmap page.</summary>
    public static ReadOnlySpan<byte> SectionBits(ReadOnlySpan<byte> bitmap, int j) =>
        bitmap.Slice(BitsOffset + SectionBytes * j, SectionBytes);

    public static void InitDirectory(Span<byte> page)
    {
        PageHeader.SetFlags(page, PageFlags.FreeSpace);
        WriteInt32(page, KindOffset, DirectoryKind);
        WriteInt32(page, VersionOffset, Version);
    }

    public static void InitBitmap(Span<byte> page, int index)
    {
        PageHeader.SetFlags(page, PageFlags.FreeSpace);
        WriteInt32(page, KindOffset, BitmapKind);
        WriteInt32(page, IndexOffset, index);
    }

    public static void InitPending(Span<byte> page)
    {
        PageHeader.SetFlags(page, PageFlags.FreeSpace);
        WriteInt32(page, KindOffset, PendingKind);
    }

    public static PendingRun ReadEntry(ReadOnlySpan<byte> page, int index)
    {
        var at = EntriesOffset + EntrySize * index;
        return new PendingRun(ReadInt64(page, at), ReadInt64(page, at + 8), ReadInt32(page, at + 16));
    }

    public static void WriteEntry(Span<byte> page, int index, PendingRun run)
    {
        var at = EntriesOffset + EntrySize * index;
        WriteInt64(page, at, run.FreedBy);
        WriteInt64(page, at + 8, run.FirstPage);
        WriteInt32(page, at + 16, run.PageCount);
        WriteInt32(page, at + 20, 0);
    }
}
