using static Voron.Allocation.FreeSpaceFormat;

namespace Voron.Allocation.Policies;

// Design notes — the section allocation policy (AllocationPolicy.Sections).
//
// The aim is that the pages one flush writes land in few places of the data file. A flush writes
// what recent transactions allocated, so recent allocations should be close together: they come
// from one *active* section (4 MiB) while it has room, and the file grows only when no section
// has a useful amount of free space. This is the 2013 Voron "active section" policy
// (../shared/reference/voron.md 1.5), with its thresholds as options.
//
//   Place(count):
//     SP1. count fits a free run of the active section          -> take it (lowest run there)
//     SP2. otherwise find the next section: the first one after the last active section, in
//         forward order wrapping around, with at least MinFreePagesToSwitch free pages (and at
//         least count); then among it and the MaxSectionsToScan sections after it the one with
//         the most free pages that holds a run of count        -> it becomes the active section
//     SP3. no section qualifies: if free pages are already at least MaxFreeSpacePercent of the
//         file, take the section with the most free pages anyway (a soft bound on the space
//         churn can waste); else                               -> the end of the file (-1), and
//         allocations stay at the end for the rest of the transaction: pages freed meanwhile are
//         pending (PageAllocator A5), so searching again cannot find more before the next one
//     SP4. a run longer than a section                          -> the lowest run anywhere, else the end
//
// Counts come from memory (FreeSpaceSummary); only the chosen section's bitmap is read.

/// <summary>Allocates from one active 4 MiB section at a time; see the notes above.</summary>
internal sealed class SectionAllocationPolicy : IAllocationPolicy
{
    private const int MaxRunProbes = 8;

    private readonly int _minFreeToSwitch;
    private readonly int _maxSectionsToScan;
    private readonly int _maxFreeSpacePercent;
    private int _active;
    private int _scanFrom;
    private bool _atEndForThisTransaction;

    public SectionAllocationPolicy(SectionCursor cursor, int minFreePagesToSwitch, int maxSectionsToScan, int maxFreeSpacePercent)
    {
        _active = cursor.ActiveSection;
        _scanFrom = cursor.ScanFrom;
        _minFreeToSwitch = minFreePagesToSwitch;
        _maxSectionsToScan = maxSectionsToScan;
        _maxFreeSpacePercent = maxFreeSpacePercent;
    }

    public SectionCursor Cursor => new(_active, _scanFrom);

    /// <summary>How many times this transaction changed its active section (for tests and diagnostics).</summary>
    public int Switches { get; private set; }

    public long Place(ISectionView map, int count)
    {
        if (count > PagesPerSection)
        {
            return map.FindRun(0, map.SectionFree.Length, count); // SP4
        }

        var free = map.SectionFree;
        if (_active >= 0 && _active < free.Length && free[_active] >= count)
        {
            var page = map.FindRun(_active, 1, count); // SP1
            if (page >= 0)
            {
                return page;
            }
        }

        if (_atEndForThisTransaction)
        {
            return -1;
        }

        var next = ChooseSection(map, count);
        if (next < 0)
        {
            _active = -1; // SP3: the end of the file
            _atEndForThisTransaction = true;
            return -1;
        }

        if (next != _active)
        {
            Switches++;
        }

        _active = next;
        _scanFrom = next + 1;
        return map.FindRun(next, 1, count);
    }

    private int ChooseSection(ISectionView map, int count)
    {
        var free = map.SectionFree;
        var n = free.Length;
        if (n == 0)
        {
            return -1;
        }

        var start = _scanFrom < n ? _scanFrom : 0;
        var threshold = Math.Max(_minFreeToSwitch, count);
        var first = FirstWithAtLeast(free, start, threshold); // SP2
        if (first >= 0)
        {
            var best = Fullest(map, first, Math.Min(_maxSectionsToScan + 1, n), threshold, count);
            if (best >= 0)
            {
                return best;
            }
        }

        if (map.FreePages * 100 >= (long)_maxFreeSpacePercent * map.NextPageNumber && map.FreePages >= count)
        {
            return Fullest(map, start, n, count, count); // SP3
        }

        return -1;
    }

    /// <summary>The first section at or after <paramref name="start"/>, wrapping, with at least <paramref name="threshold"/> free pages.</summary>
    private static int FirstWithAtLeast(ReadOnlySpan<ushort> free, int start, int threshold)
    {
        var low = (ushort)threshold;
        var found = free[start..].IndexOfAnyInRange(low, (ushort)PagesPerSection);
        if (found >= 0)
        {
            return start + found;
        }

        found = free[..start].IndexOfAnyInRange(low, (ushort)PagesPerSection);
        return found;
    }

    /// <summary>
    /// Among <paramref name="span"/> sections from <paramref name="from"/> (wrapping), the one with
    /// the most free pages (at least <paramref name="threshold"/>) that holds a run of
    /// <paramref name="count"/>; ties go to the first in forward order. -1 if none.
    /// </summary>
    private static int Fullest(ISectionView map, int from, int span, int threshold, int count)
    {
        var n = map.SectionFree.Length;
        var rejected = new List<int>();
        for (var probe = 0; probe < MaxRunProbes; probe++)
        {
            var free = map.SectionFree;
            var best = -1;
            for (var i = 0; i < span; i++)
            {
                var s = from + i < n ? from + i : from + i - n;
                if (free[s] >= threshold && (best < 0 || free[s] > free[best]) && !rejected.Contains(s))
                {
                    best = s;
                    if (free[s] == PagesPerSection)
                    {
                        break;
                    }
                }
            }

            if (best < 0 || count == 1 || map.FindRun(best, 1, count) >= 0)
            {
                return best;
            }

            rejected.Add(best); // enough free pages, but too fragmented for this run
        }

        return -1;
    }
}
