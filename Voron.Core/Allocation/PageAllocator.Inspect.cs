using static Voron.Allocation.FreeSpaceFormat;

namespace Voron.Allocation;

// What the integrity check (StorageEnvironment.CheckIntegrity) asks of the allocator. Reads only.
internal sealed partial class PageAllocator
{
    /// <summary>The pages the free-space structures occupy: the directory, the bitmaps, the pending chain.</summary>
    public List<long> StructurePages()
    {
        var pages = new List<long>();
        if (DirectoryPage == 0)
        {
            return pages;
        }

        pages.Add(DirectoryPage);
        pages.AddRange(_bitmapPages);
        var directory = _pages.GetPage(DirectoryPage);
        var chainPages = ReadInt32(directory, PendingPagesOffset);
        var page = ReadInt64(directory, PendingHeadOffset);
        for (var step = 0; page != 0; step++)
        {
            if (step >= chainPages)
            {
                throw new InvalidOperationException($"Integrity: the pending chain is longer than the {chainPages} pages its directory claims.");
            }

            pages.Add(page);
            page = ReadInt64(_pages.GetPage(page), NextOffset);
        }

        return pages;
    }

    /// <summary>Every pending-free run, oldest first.</summary>
    public List<PendingRun> PendingRuns()
    {
        var runs = new List<PendingRun>();
        if (DirectoryPage == 0)
        {
            return runs;
        }

        var chainPages = ReadInt32(_pages.GetPage(DirectoryPage), PendingPagesOffset);
        var page = ReadInt64(_pages.GetPage(DirectoryPage), PendingHeadOffset);
        for (var step = 0; page != 0 && step < chainPages; step++)
        {
            var bytes = _pages.GetPage(page);
            var entries = ReadInt32(bytes, EntryCountOffset);
            for (var i = 0; i < entries; i++)
            {
                runs.Add(ReadEntry(bytes, i));
            }

            page = ReadInt64(bytes, NextOffset);
        }

        return runs;
    }

    /// <summary>
    /// Checks A1 for every section: the count in memory, the count on its bitmap page and the
    /// number of set bits agree, and the totals match. Throws <see cref="InvalidOperationException"/>.
    /// </summary>
    public void VerifySectionCounts()
    {
        long total = 0;
        for (var k = 0; k < _bitmapPages.Length; k++)
        {
            var bitmap = _pages.GetPage(_bitmapPages[k]);
            for (var j = 0; j < SectionsPerBitmap; j++)
            {
                var section = k * SectionsPerBitmap + j;
                var bits = FreeSpaceSummary.CountBits(SectionBits(bitmap, j));
                var stored = SectionCount(bitmap, j);
                if (bits != stored || bits != _sectionFree[section])
                {
                    throw new InvalidOperationException($"Integrity: section {section} has {bits} free bits, but its bitmap page counts {stored} and memory {_sectionFree[section]}.");
                }

                total += bits;
            }
        }

        if (total != _freePages)
        {
            throw new InvalidOperationException($"Integrity: the sections hold {total} free pages, but the summary says {_freePages}.");
        }

        var pending = PendingRuns().Sum(r => (long)r.PageCount);
        if (pending != _pendingPages)
        {
            throw new InvalidOperationException($"Integrity: the pending chain lists {pending} pages, but the summary says {_pendingPages}.");
        }
    }
}
