using System.Buffers.Binary;
using System.Numerics;
using static Voron.Allocation.FreeSpaceFormat;

namespace Voron.Allocation;

internal sealed partial record FreeSpaceSummary
{
    /// <summary>
    /// Reads and validates the directory, every bitmap page and the pending chain (FS1–FS7 of
    /// FreeSpaceFormat.cs: the format rules; FS8, every page owned once, is the integrity check's). Bytes from disk are validated, never trusted: a violation raises
    /// <see cref="CorruptionException"/> naming the data file and the page's offset.
    /// </summary>
    public static FreeSpaceSummary Load(IAllocatorPages pages, long directoryPage, long nextPageNumber)
    {
        if (directoryPage == 0)
        {
            return Empty;
        }

        var file = pages.DataFilePath;
        var directory = pages.GetPage(directoryPage);
        var kind = Kind(directory);
        if (kind == V1DirectoryKind)
        {
            throw new FormatVersionException(file, 1, FreeSpaceFormat.Version);
        }

        if (kind != DirectoryKind)
        {
            throw Corrupt(file, directoryPage, $"rule FS1: page {directoryPage} should be the free-space directory but has kind {kind}");
        }

        var version = ReadInt32(directory, VersionOffset);
        if (version != FreeSpaceFormat.Version)
        {
            throw new FormatVersionException(file, version, FreeSpaceFormat.Version);
        }

        var count = ReadInt32(directory, BitmapCountOffset);
        if (count < 0 || count > MaxBitmapPages)
        {
            throw Corrupt(file, directoryPage, $"rule FS2: the free-space directory lists {count} bitmap pages, more than {MaxBitmapPages}");
        }

        var bitmapPages = new long[count];
        var sectionFree = new ushort[count * SectionsPerBitmap];
        long freePages = 0;
        for (var k = 0; k < count; k++)
        {
            bitmapPages[k] = ReadInt64(directory, ListOffset + 8 * k);
            RequireInFile(file, directoryPage, bitmapPages[k], nextPageNumber, $"bitmap page {k}");
            freePages += LoadBitmap(pages, k, bitmapPages[k], nextPageNumber, sectionFree);
        }

        var (pendingPages, oldest) = LoadPending(pages, directoryPage, directory, nextPageNumber);
        return new FreeSpaceSummary(bitmapPages, sectionFree, freePages, pendingPages, oldest, SectionCursor.Start);
    }

    private static long LoadBitmap(IAllocatorPages pages, int k, long pageNumber, long nextPageNumber, ushort[] sectionFree)
    {
        var file = pages.DataFilePath;
        var bitmap = pages.GetPage(pageNumber);
        if (Kind(bitmap) != BitmapKind || ReadInt32(bitmap, IndexOffset) != k)
        {
            throw Corrupt(file, pageNumber, $"rule FS1/FS3: page {pageNumber} is not free-space bitmap {k} (kind {Kind(bitmap)}, index {ReadInt32(bitmap, IndexOffset)})");
        }

        long free = 0;
        for (var j = 0; j < SectionsPerBitmap; j++)
        {
            var stored = SectionCount(bitmap, j);
            var counted = CountBits(SectionBits(bitmap, j));
            if (stored != counted)
            {
                var section = k * SectionsPerBitmap + j;
                throw Corrupt(file, pageNumber, $"rule FS4: section {section} claims {stored} free pages but its bitmap has {counted}");
            }

            sectionFree[k * SectionsPerBitmap + j] = (ushort)counted;
            free += counted;
        }

        // FS5: page 0 and pages at or above NextPageNumber are never free.
        var first = (long)k * PagesPerBitmap;
        var bits = bitmap[BitsOffset..];
        if (k == 0 && (bits[0] & 1) != 0)
        {
            throw Corrupt(file, pageNumber, "rule FS5: page 0 (the identity page) is marked free");
        }

        for (var page = Math.Max(first, nextPageNumber); page < first + PagesPerBitmap; page++)
        {
            var bit = (int)(page - first);
            if ((bits[bit >> 3] & (1 << (bit & 7))) != 0)
            {
                throw Corrupt(file, pageNumber, $"rule FS5: page {page} is marked free but lies at or above the end of allocation ({nextPageNumber})");
            }
        }

        return free;
    }

    private static (long Pages, long OldestFreedBy) LoadPending(IAllocatorPages pages, long directoryPage, ReadOnlySpan<byte> directory, long nextPageNumber)
    {
        var file = pages.DataFilePath;
        var chainLength = ReadInt32(directory, PendingPagesOffset);
        var head = ReadInt64(directory, PendingHeadOffset);
        var tail = ReadInt64(directory, PendingTailOffset);
        if (chainLength > nextPageNumber)
        {
            throw Corrupt(file, directoryPage, $"rule FS6: the pending chain claims {chainLength} pages, more than the {nextPageNumber} allocated");
        }

        if (head == 0 || tail == 0 || chainLength <= 0)
        {
            if (head != 0 || tail != 0 || chainLength != 0)
            {
                throw Corrupt(file, directoryPage, $"rule FS6: the pending chain is inconsistent (head {head}, tail {tail}, {chainLength} pages)");
            }

            return (0, long.MaxValue);
        }

        long listed = 0;
        long lastFreedBy = 0;
        long oldest = 0;
        var page = head;
        var previous = 0L;
        var visited = new HashSet<long>();
        for (var step = 0; step < chainLength; step++) // the step limit bounds the walk; the visited set ends a cycle at once
        {
            if (page == 0)
            {
                throw Corrupt(file, directoryPage, $"rule FS6: the pending chain ends after {step} pages, but the directory says {chainLength}");
            }

            if (!visited.Add(page))
            {
                throw Corrupt(file, previous, $"rule FS6: the pending chain returns to page {page} after {step} pages (a cycle)");
            }

            RequireInFile(file, previous == 0 ? directoryPage : previous, page, nextPageNumber, "a pending page");
            var bytes = pages.GetPage(page);
            var entries = ReadInt32(bytes, EntryCountOffset);
            if (Kind(bytes) != PendingKind || entries < 1 || entries > MaxPendingEntries)
            {
                throw Corrupt(file, page, $"rule FS1/FS6: page {page} is not a pending-free page with 1..{MaxPendingEntries} entries (kind {Kind(bytes)}, {entries} entries)");
            }

            for (var i = 0; i < entries; i++)
            {
                var run = ReadEntry(bytes, i);
                if (run.PageCount < 1 || run.FirstPage < 1 || run.FirstPage > nextPageNumber - run.PageCount ||
                    run.FreedBy < Math.Max(1, lastFreedBy))
                {
                    throw Corrupt(file, page, $"rule FS7: pending entry {i} of page {page} is invalid ({run}; previous freed by {lastFreedBy}, end of allocation {nextPageNumber})");
                }

                oldest = oldest == 0 ? run.FreedBy : oldest;
                lastFreedBy = run.FreedBy;
                listed += run.PageCount;
            }

            previous = page;
            page = ReadInt64(bytes, NextOffset);
        }

        if (previous != tail || page != 0)
        {
            throw Corrupt(file, previous, $"rule FS6: the pending chain does not end at its tail {tail} after {chainLength} pages (next {page})");
        }

        return (listed, oldest);
    }

    private static void RequireInFile(string file, long referencedFrom, long page, long nextPageNumber, string what)
    {
        if (page <= 0 || page >= nextPageNumber)
        {
            throw Corrupt(file, referencedFrom, $"rule FS2: {what} is page {page}, outside [1, {nextPageNumber})");
        }
    }

    private static CorruptionException Corrupt(string file, long page, string reason) => new(file, page * Constants.PageSize, reason);

    internal static int CountBits(ReadOnlySpan<byte> bits)
    {
        var count = 0;
        for (var i = 0; i + 8 <= bits.Length; i += 8)
        {
            count += BitOperations.PopCount(BinaryPrimitives.ReadUInt64LittleEndian(bits[i..]));
        }

        return count;
    }
}
