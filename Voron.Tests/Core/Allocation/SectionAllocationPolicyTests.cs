using Voron.Allocation;
using Voron.Allocation.Policies;

namespace Voron.Tests.Core.Allocation;

public sealed class SectionAllocationPolicyTests
{
    private static SectionAllocationPolicy Policy(int active = -1, int scanFrom = 0, int minFree = 256, int maxScan = 256, int maxFreePercent = 20) =>
        new(new SectionCursor(active, scanFrom), minFree, maxScan, maxFreePercent);

    /// <summary>Places and takes <paramref name="count"/> single pages; returns where they went.</summary>
    private static List<long> PlaceMany(SectionAllocationPolicy policy, FakeSectionView map, int count)
    {
        var pages = new List<long>();
        for (var i = 0; i < count; i++)
        {
            var page = policy.Place(map, 1);
            if (page >= 0)
            {
                map.Take(page, 1);
            }

            pages.Add(page);
        }

        return pages;
    }

    [Fact]
    public void Place_keeps_using_the_active_section_while_it_has_room()
    {
        // Section 1 is active with 40 free pages; section 3 has many more, but the active one wins while it lasts.
        var map = new FakeSectionView(4).WithFree(1, 40, from: 100).WithFree(3, 500);
        var policy = Policy(active: 1);

        var pages = PlaceMany(policy, map, 40);

        Assert.All(pages, p => Assert.Equal(1, FakeSectionView.SectionOf(p)));
        Assert.Equal(Enumerable.Range(512 + 100, 40).Select(p => (long)p), pages);
        Assert.Equal(1, policy.Cursor.ActiveSection);
        Assert.Equal(0, policy.Switches);
    }

    [Fact]
    public void Place_switches_to_the_next_qualifying_section_in_forward_order_when_the_active_one_is_full()
    {
        // Active section 2 has 3 pages left; section 1 (behind it) and section 4 (ahead) qualify; forward order picks 4.
        var map = new FakeSectionView(6).WithFree(2, 3).WithFree(1, 400).WithFree(4, 300).WithFree(5, 100);
        var policy = Policy(active: 2, scanFrom: 3, maxScan: 0);

        var pages = PlaceMany(policy, map, 10);

        Assert.Equal([2, 2, 2, 4, 4, 4, 4, 4, 4, 4], pages.Select(FakeSectionView.SectionOf));
        Assert.Equal(4, policy.Cursor.ActiveSection);
        Assert.Equal(1, policy.Switches);
    }

    [Fact]
    public void Place_takes_the_section_with_the_most_free_pages_within_the_scan_window()
    {
        var map = new FakeSectionView(8).WithFree(1, 260).WithFree(2, 300).WithFree(3, 450).WithFree(6, 512);

        Assert.Equal(3, FakeSectionView.SectionOf(Policy(scanFrom: 1, maxScan: 2).Place(map, 1)));
        Assert.Equal(6, FakeSectionView.SectionOf(Policy(scanFrom: 1, maxScan: 5).Place(map, 1)));
        Assert.Equal(1, FakeSectionView.SectionOf(Policy(scanFrom: 1, maxScan: 0).Place(map, 1)));
    }

    [Fact]
    public void Place_wraps_around_to_sections_before_the_last_active_one()
    {
        var map = new FakeSectionView(5).WithFree(0, 300).WithFree(2, 10);

        Assert.Equal(0, FakeSectionView.SectionOf(Policy(active: 2, scanFrom: 3).Place(map, 20)));
    }

    [Fact]
    public void Place_extends_the_file_only_when_no_section_qualifies_and_stays_at_the_end_for_the_transaction()
    {
        // Plenty of free pages in total, but no section reaches 256 and free space is below 20% of the file.
        var map = new FakeSectionView(20).WithFree(3, 200).WithFree(7, 255);
        var policy = Policy();

        Assert.Equal(-1, policy.Place(map, 1));
        Assert.Equal(-1, policy.Cursor.ActiveSection);

        // Frees released later in this transaction cannot be seen (they would be pending), and the
        // policy does not search again within the transaction.
        map.WithFree(9, 512);
        Assert.Equal(-1, policy.Place(map, 1));

        // The next transaction searches again and finds section 9.
        var next = Policy(policy.Cursor.ActiveSection, policy.Cursor.ScanFrom);
        Assert.Equal(9, FakeSectionView.SectionOf(next.Place(map, 1)));
    }

    [Fact]
    public void Place_reuses_the_fullest_section_below_the_threshold_once_free_space_reaches_MaxFreeSpacePercent()
    {
        // 4 sections, 410 free pages of 2,048 = 20%: no section reaches 256, but the file must not grow.
        var map = new FakeSectionView(4).WithFree(0, 100).WithFree(1, 200).WithFree(2, 110);

        Assert.Equal(1, FakeSectionView.SectionOf(Policy(maxFreePercent: 20).Place(map, 1)));
        Assert.Equal(-1, Policy(maxFreePercent: 21).Place(map, 1));
    }

    [Fact]
    public void Place_skips_a_section_whose_free_pages_are_too_fragmented_for_the_run()
    {
        // Section 1 has the most free pages (341) but in runs of two; section 2 has a run of 300.
        var map = new FakeSectionView(3);
        for (var i = 0; i < 512; i++)
        {
            if (i % 3 != 2)
            {
                map.WithFree(1, 1, from: i);
            }
        }

        map.WithFree(2, 300);
        var page = Policy(scanFrom: 1).Place(map, 4);

        Assert.Equal(2, FakeSectionView.SectionOf(page));
        Assert.Equal(2 * 512, page);
    }

    [Fact]
    public void Place_puts_runs_longer_than_a_section_in_the_lowest_fitting_place_or_at_the_end()
    {
        var map = new FakeSectionView(6).WithFree(2, 512).WithFree(3, 512);

        Assert.Equal(2 * 512, Policy(active: 5).Place(map, 700));
        Assert.Equal(-1, Policy(active: 5).Place(map, 1100));
    }

    [Fact]
    public void FirstFit_takes_the_lowest_run_wherever_it_is()
    {
        var map = new FakeSectionView(4).WithFree(3, 512).WithFree(1, 2, from: 10).WithFree(1, 5, from: 20);
        var policy = new FirstFitPolicy();

        Assert.Equal(512 + 10, policy.Place(map, 1));
        Assert.Equal(512 + 20, policy.Place(map, 3));
        Assert.Equal(-1, policy.Place(map, 3000));
        Assert.Equal(SectionCursor.Start, policy.Cursor);
    }
}
