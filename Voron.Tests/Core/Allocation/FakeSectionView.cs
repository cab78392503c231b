using Voron.Allocation;
using Voron.Allocation.Policies;

namespace Voron.Tests.Core.Allocation;

/// <summary>An in-memory free-page map for policy tests: one bool per page, counts per section.</summary>
internal sealed class FakeSectionView : ISectionView
{
    private readonly bool[] _free;
    private readonly ushort[] _counts;

    public FakeSectionView(int sections)
    {
        _free = new bool[sections * FreeSpaceFormat.PagesPerSection];
        _counts = new ushort[sections];
        NextPageNumber = _free.Length;
    }

    public ReadOnlySpan<ushort> SectionFree => _counts;

    public long FreePages => _counts.Sum(c => (long)c);

    public long NextPageNumber { get; set; }

    /// <summary>Marks the first <paramref name="count"/> pages of a section free.</summary>
    public FakeSectionView WithFree(int section, int count, int from = 0)
    {
        for (var i = from; i < from + count; i++)
        {
            Set(section * FreeSpaceFormat.PagesPerSection + i, true);
        }

        return this;
    }

    /// <summary>Takes a run the policy chose, as the allocator would.</summary>
    public void Take(long first, int count)
    {
        for (var page = first; page < first + count; page++)
        {
            Assert.True(_free[page], $"page {page} was placed but is not free");
            Set((int)page, false);
        }
    }

    public static int SectionOf(long page) => (int)(page / FreeSpaceFormat.PagesPerSection);

    public long FindRun(int firstSection, int sections, int count)
    {
        var end = Math.Min(firstSection + sections, _counts.Length) * FreeSpaceFormat.PagesPerSection;
        var run = 0;
        for (var page = firstSection * FreeSpaceFormat.PagesPerSection; page < end; page++)
        {
            run = _free[page] ? run + 1 : 0;
            if (run == count)
            {
                return page - count + 1;
            }
        }

        return -1;
    }

    private void Set(int page, bool free)
    {
        if (_free[page] != free)
        {
            _free[page] = free;
            _counts[page / FreeSpaceFormat.PagesPerSection] += (ushort)(free ? 1 : -1);
        }
    }
}
