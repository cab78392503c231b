using System.Buffers.Binary;
using Voron.Paging;

namespace Voron.Allocation;

// FORMAT: free-space pages, version 1 — which pages of the data file are free.
//
// Free space is a bitmap, kept in pages of the data file and changed by write transactions like
// any other page (so it is journaled, recovered and synced with everything else). One directory
// page lists the bitmap pages; EnvironmentState.FreeSpaceRoot points to the directory.
//
//   directory page (Flags = FreeSpace)
//   OFFSET SIZE   NAME          MEANING
//   0      64     PageHeader
//   64     4      Kind          1 = directory
//   68     4      Count         bitmap pages listed, 0..MaxBitmapPages
//   72     8*N    BitmapPages   page number of bitmap page k, for k = 0..Count-1
//
//   bitmap page (Flags = FreeSpace)
//   OFFSET SIZE   NAME          MEANING
//   0      64     PageHeader
//   64     4      Kind          2 = bitmap
//   68     4      Index         k: this page covers pages [k * BitsPerPage, (k + 1) * BitsPerPage)
//   72     8120   Bits          bit i (byte i / 8, bit i % 8) set = page k * BitsPerPage + i is free
//
// Validity: F1 Kind matches the page's role; F2 Count <= MaxBitmapPages and every listed page is
// below NextPageNumber; F3 bitmap page k has Index k; F4 no bit is set for a page at or above
// NextPageNumber, for page 0, or for a page that is owned by a tree or by free space itself
// (checked by StorageEnvironment.CheckIntegrity). With MaxBitmapPages = 1015 directory entries of
// 64,960 pages each, free space can be tracked in the first ~503 GiB of the data file; allocating
// past that is refused with a clear error. (The section allocator, a later issue, replaces this
// layout and bumps the format version.)

/// <summary>Offsets and constants of the free-space pages; see the FORMAT block above.</summary>
internal static class FreeSpaceFormat
{
    public const int KindOffset = 64;
    public const int CountOffset = 68;
    public const int IndexOffset = 68;
    public const int ListOffset = 72;
    public const int BitsOffset = 72;
    public const int DirectoryKind = 1;
    public const int BitmapKind = 2;
    public const int BitsPerPage = (Constants.PageSize - BitsOffset) * 8;
    public const int MaxBitmapPages = (Constants.PageSize - ListOffset) / 8;

    public static int Kind(ReadOnlySpan<byte> page) => BinaryPrimitives.ReadInt32LittleEndian(page[KindOffset..]);

    public static void InitDirectory(Span<byte> page)
    {
        PageHeader.SetFlags(page, PageFlags.FreeSpace);
        BinaryPrimitives.WriteInt32LittleEndian(page[KindOffset..], DirectoryKind);
    }

    public static void InitBitmap(Span<byte> page, int index)
    {
        PageHeader.SetFlags(page, PageFlags.FreeSpace);
        BinaryPrimitives.WriteInt32LittleEndian(page[KindOffset..], BitmapKind);
        BinaryPrimitives.WriteInt32LittleEndian(page[IndexOffset..], index);
    }
}
