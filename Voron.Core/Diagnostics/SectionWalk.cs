using Voron.Allocation;
using Voron.Transactions;
using static Voron.Allocation.FreeSpaceFormat;

namespace Voron.Diagnostics;

/// <summary>
/// Free space per 4 MiB section as of one snapshot, without a write transaction: the free counts
/// come from the snapshot's digest (FreeSpaceSummary, the same numbers as its bitmap pages, FS4),
/// and the pending-free runs from the chain's pages read through the read transaction. A write
/// transaction's allocator may release pending runs into the bitmap at its first allocation (A5);
/// the snapshot shows them as they were committed, pending.
/// </summary>
internal static class SectionWalk
{
    public static List<SectionStatistics> Sections(LowLevelTransaction transaction, long directoryPage, long allocatedPages, FreeSpaceSummary summary)
    {
        var count = (int)((allocatedPages + PagesPerSection - 1) / PagesPerSection);
        var free = new long[count];
        for (var s = 0; s < count && s < summary.SectionFree.Length; s++)
        {
            free[s] = summary.SectionFree[s];
        }

        foreach (var run in PendingRuns(transaction, directoryPage, allocatedPages))
        {
            for (var page = run.FirstPage; page < run.FirstPage + run.PageCount; page++)
            {
                free[page / PagesPerSection]++;
            }
        }

        var sections = new List<SectionStatistics>(count);
        for (var s = 0; s < count; s++)
        {
            var pages = (int)Math.Min(PagesPerSection, allocatedPages - ((long)s * PagesPerSection));
            sections.Add(new SectionStatistics(s, pages, (int)free[s]));
        }

        return sections;
    }

    /// <summary>The pending-free runs of the snapshot's chain, validated (FS1, FS6, FS7) as the open does.</summary>
    private static List<PendingRun> PendingRuns(LowLevelTransaction transaction, long directoryPage, long allocatedPages)
    {
        var runs = new List<PendingRun>();
        if (directoryPage == 0)
        {
            return runs;
        }

        var file = transaction.DataFilePath;
        var directory = transaction.GetPage(directoryPage);
        if (Kind(directory) != DirectoryKind)
        {
            throw Corrupt(file, directoryPage, $"rule FS1: page {directoryPage} should be the free-space directory but has kind {Kind(directory)}");
        }

        var chainPages = ReadInt32(directory, PendingPagesOffset);
        var page = ReadInt64(directory, PendingHeadOffset);
        for (var step = 0; page != 0; step++)
        {
            if (step >= chainPages || page < 1 || page >= allocatedPages)
            {
                throw Corrupt(file, directoryPage, $"rule FS6: the pending chain reaches page {page} after {step} pages; the directory says {chainPages} pages below {allocatedPages}");
            }

            var bytes = transaction.GetPage(page);
            var entries = ReadInt32(bytes, EntryCountOffset);
            if (Kind(bytes) != PendingKind || entries < 1 || entries > MaxPendingEntries)
            {
                throw Corrupt(file, page, $"rule FS1/FS6: page {page} is not a pending-free page with 1..{MaxPendingEntries} entries (kind {Kind(bytes)}, {entries} entries)");
            }

            for (var i = 0; i < entries; i++)
            {
                var run = ReadEntry(bytes, i);
                if (run.PageCount < 1 || run.FirstPage < 1 || run.FirstPage > allocatedPages - run.PageCount)
                {
                    throw Corrupt(file, page, $"rule FS7: pending entry {i} of page {page} lies outside [1, {allocatedPages}) ({run})");
                }

                runs.Add(run);
            }

            page = ReadInt64(bytes, NextOffset);
        }

        return runs;
    }

    private static CorruptionException Corrupt(string file, long page, string reason) => new(file, page * Constants.PageSize, reason);
}
