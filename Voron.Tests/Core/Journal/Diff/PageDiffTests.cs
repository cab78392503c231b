using Voron.Journal.Diff;
using static Voron.Tests.Core.Journal.Diff.DiffCheck;

namespace Voron.Tests.Core.Journal.Diff;

/// <summary>Compute and Apply on hand-made page pairs: what the diff holds and that it round-trips.</summary>
public sealed class PageDiffTests
{
    private static byte[] RandomPage(int seed, int pages = 1) => RandomBytes(new Random(seed), pages * PageSize);

    private static byte[] Copy(byte[] bytes) => (byte[])bytes.Clone();

    [Fact]
    public void Compute_returns_an_empty_diff_when_the_page_is_unchanged()
    {
        var page = RandomPage(1);

        var diff = RoundTrip(page, Copy(page));

        Assert.Empty(diff);
    }

    [Fact]
    public void Compute_writes_one_byte_range_when_the_first_byte_changed()
    {
        var previous = RandomPage(2);
        var current = Copy(previous);
        current[0] ^= 0x5A;

        var diff = RoundTrip(previous, current);

        Assert.Equal([(0u, 1)], Ranges(diff));
        Assert.Equal(PageDiff.RangeHeaderSize + 1, diff.Length);
    }

    [Fact]
    public void Compute_writes_one_byte_range_when_the_last_byte_changed()
    {
        var previous = RandomPage(3);
        var current = Copy(previous);
        current[^1] ^= 0x01;

        var diff = RoundTrip(previous, current);

        Assert.Equal([(PageSize - 1u, 1)], Ranges(diff));
    }

    [Fact]
    public void Compute_writes_one_range_per_change_when_changes_are_scattered()
    {
        var previous = RandomPage(4);
        var current = Copy(previous);
        int[] offsets = [17, 700, 701, 702, 4096, 6000, 8000];
        foreach (var offset in offsets)
        {
            current[offset] ^= 0xFF;
        }

        var diff = RoundTrip(previous, current);

        Assert.Equal([(17u, 1), (700u, 3), (4096u, 1), (6000u, 1), (8000u, 1)], Ranges(diff));
    }

    [Fact]
    public void Compute_merges_changes_when_the_gap_between_them_is_shorter_than_a_header()
    {
        var previous = RandomPage(5);
        var current = Copy(previous);
        current[100] ^= 1;
        current[108] ^= 1; // 7 unchanged bytes between: carried as payload
        current[200] ^= 1;
        current[209] ^= 1; // 8 unchanged bytes between: a second header costs no more, so two ranges

        var diff = RoundTrip(previous, current);

        Assert.Equal([(100u, 9), (200u, 1), (209u, 1)], Ranges(diff));
    }

    [Fact]
    public void Compute_returns_NotSmaller_when_every_byte_changed()
    {
        var previous = RandomPage(6);
        var current = RandomPage(7);

        Assert.Null(Compute(previous, current));
    }

    [Fact]
    public void Compute_returns_NotSmaller_when_the_diff_would_be_exactly_the_page_size()
    {
        // One range of PageSize - 8 bytes plus its header is PageSize bytes: no saving.
        var previous = new byte[PageSize];
        var current = Copy(previous);
        current.AsSpan(8, PageSize - 8).Fill(0x11);

        Assert.Null(Compute(previous, current));
        current[8] = 0;
        Assert.Equal(PageSize - 1, RoundTrip(previous, current).Length);
    }

    [Fact]
    public void Compute_returns_NotSmaller_when_the_diff_does_not_fit_the_output()
    {
        var previous = RandomPage(8);
        var current = Copy(previous);
        current.AsSpan(1000, 100).Fill(0x22);

        Assert.Equal(PageDiff.NotSmaller, PageDiff.Compute(previous, current, new byte[107]));
        Assert.Equal(108, PageDiff.Compute(previous, current, new byte[108]));
    }

    [Fact]
    public void Compute_throws_when_the_versions_differ_in_length()
    {
        Assert.Throws<ArgumentException>(() => PageDiff.Compute(new byte[PageSize], new byte[2 * PageSize], new byte[PageSize]));
    }

    [Fact]
    public void ComputeAgainstZeros_writes_only_the_non_zero_parts_of_a_new_sparse_page()
    {
        // A new leaf: a header, two slots, and two nodes at the end of the page.
        var page = new byte[PageSize];
        var random = new Random(9);
        random.NextBytes(page.AsSpan(0, 20));
        random.NextBytes(page.AsSpan(64, 4));
        random.NextBytes(page.AsSpan(PageSize - 300, 300));
        var output = new byte[PageSize];

        var size = PageDiff.ComputeAgainstZeros(page, output);

        Assert.Equal([(0u, 20), (64u, 4), ((uint)PageSize - 300, 300)], Ranges(output.AsSpan(0, size)));
        Assert.Equal(Compute(new byte[PageSize], page), output[..size]);
        Assert.Equal(page, Apply(output[..size], new byte[PageSize]));
    }

    [Fact]
    public void ComputeAgainstZeros_returns_an_empty_diff_when_the_page_is_all_zeros()
    {
        Assert.Equal(0, PageDiff.ComputeAgainstZeros(new byte[PageSize], new byte[PageSize]));
    }

    [Fact]
    public void Compute_encodes_a_zeroed_region_as_one_negative_range()
    {
        var previous = RandomPage(10);
        var current = Copy(previous);
        current.AsSpan(3000, 2000).Clear();

        var diff = RoundTrip(previous, current);

        // Random old bytes that were already zero at the region's edges are unchanged, so the
        // range may start or end a byte or two inside the region.
        var (offset, length) = Assert.Single(Ranges(diff));
        Assert.InRange(offset, 3000u, 3003u);
        Assert.InRange(-length, 1994, 2000);
        Assert.Equal(PageDiff.RangeHeaderSize, diff.Length);
    }

    [Fact]
    public void Compute_splits_a_zero_run_out_of_changed_bytes_when_that_saves_bytes()
    {
        var previous = new byte[PageSize];
        previous.AsSpan().Fill(0x77);
        var current = Copy(previous);
        current.AsSpan(1000, 10).Fill(0x01);
        current.AsSpan(1010, 17).Clear(); // 17 zeros in the middle: two headers (16) are cheaper
        current.AsSpan(1027, 10).Fill(0x02);
        current.AsSpan(2000, 10).Fill(0x03);
        current.AsSpan(2010, 16).Clear(); // 16 zeros in the middle: splitting saves nothing
        current.AsSpan(2026, 10).Fill(0x04);
        current.AsSpan(3000, 9).Clear(); // 9 zeros at a range's start: one header (8) is cheaper
        current.AsSpan(3009, 5).Fill(0x05);
        current.AsSpan(4000, 5).Fill(0x06);
        current.AsSpan(4005, 8).Clear(); // 8 zeros at a range's end: splitting saves nothing

        var diff = RoundTrip(previous, current);

        Assert.Equal(
            [(1000u, 10), (1010u, -17), (1027u, 10), (2000u, 36), (3000u, -9), (3009u, 5), (4000u, 13)],
            Ranges(diff));
    }

    [Fact]
    public void Compute_round_trips_an_overflow_run_of_three_pages()
    {
        var previous = RandomPage(11, pages: 3);
        var current = Copy(previous);
        current[5] ^= 1;
        current.AsSpan(PageSize - 10, 20).Fill(0x33); // across the first page boundary
        current.AsSpan(2 * PageSize + 100, 500).Clear();
        current[^1] ^= 1;

        var diff = RoundTrip(previous, current);

        Assert.Equal(4, Ranges(diff).Count);
        Assert.True(diff.Length < 100, $"diff of {diff.Length} bytes");
    }

    [Fact]
    public void ComputeAgainstZeros_round_trips_a_new_overflow_run_of_three_pages()
    {
        // A new run: header, a value of 20,000 random bytes, zeros after it.
        var run = new byte[3 * PageSize];
        new Random(12).NextBytes(run.AsSpan(0, 64 + 20_000));
        var output = new byte[run.Length];

        var size = PageDiff.ComputeAgainstZeros(run, output);

        Assert.InRange(size, 20_064, 20_200);
        Assert.Equal(run, Apply(output[..size], new byte[run.Length]));
    }

    [Fact]
    public void Apply_reproduces_the_new_version_from_the_old_one()
    {
        var previous = RandomPage(13);
        var current = Copy(previous);
        current.AsSpan(64, 2).Fill(9);
        current.AsSpan(5000, 300).Clear();
        current.AsSpan(7000, 40).Fill(7);
        var diff = Compute(previous, current)!;
        var target = Copy(previous);

        PageDiff.Apply(diff, target);

        Assert.Equal(current, target);
    }

    [Fact]
    public void Apply_changes_nothing_when_the_diff_is_empty()
    {
        var target = RandomPage(14);
        var before = Copy(target);

        PageDiff.Apply([], target);

        Assert.Equal(before, target);
    }
}
