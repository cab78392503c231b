using Voron.Journal.Diff;
using static Voron.Tests.Core.Journal.Diff.DiffCheck;

namespace Voron.Tests.Core.Journal.Diff;

/// <summary>The layout in the FORMAT block of PageDiff.cs, asserted byte for byte.</summary>
public sealed class PageDiffFormatTests
{
    [Fact]
    public void Range_header_fields_are_at_the_documented_offsets_and_fill_8_bytes()
    {
        Assert.Equal([0, 4, 8], [PageDiff.OffsetOffset, PageDiff.LengthOffset, PageDiff.RangeHeaderSize]);
        Assert.Equal(-1, PageDiff.NotSmaller);
    }

    [Fact]
    public void Compute_writes_the_example_of_the_FORMAT_block()
    {
        var previous = new byte[PageSize];
        previous.AsSpan().Fill(0x77);
        var current = (byte[])previous.Clone();
        current[258] = 0xAA;
        current[259] = 0xBB;
        current.AsSpan(4096, 100).Clear();

        Assert.Equal(
            [0x02, 0x01, 0, 0, 0x02, 0, 0, 0, 0xAA, 0xBB, 0x00, 0x10, 0, 0, 0x9C, 0xFF, 0xFF, 0xFF],
            Compute(previous, current));
    }

    [Fact]
    public void Compute_writes_offset_and_length_little_endian_then_the_new_bytes()
    {
        var previous = new byte[PageSize];
        var current = new byte[PageSize];
        current[0x0102] = 0xAA;
        current[0x0103] = 0xBB;

        Assert.Equal([0x02, 0x01, 0, 0, 0x02, 0, 0, 0, 0xAA, 0xBB], Compute(previous, current));
    }

    [Fact]
    public void Compute_writes_a_zero_run_as_a_negative_length_without_payload()
    {
        var previous = new byte[PageSize];
        previous.AsSpan(0x0100, 100).Fill(0xFF);
        var current = new byte[PageSize];

        // -100 is 0xFFFFFF9C.
        Assert.Equal([0x00, 0x01, 0, 0, 0x9C, 0xFF, 0xFF, 0xFF], Compute(previous, current));
    }

    [Fact]
    public void Compute_writes_ranges_in_increasing_offset_order()
    {
        var previous = RandomBytes(new Random(1), 2 * PageSize);
        var current = (byte[])previous.Clone();
        for (var i = 0; i < current.Length; i += 97)
        {
            current[i] ^= 0x80;
        }

        var ranges = Ranges(Compute(previous, current));

        Assert.Equal(ranges.OrderBy(r => r.Offset), ranges);
        Assert.All(ranges.Zip(ranges.Skip(1)), pair => Assert.True(pair.First.Offset + (uint)Math.Abs(pair.First.Length) <= pair.Second.Offset));
    }
}
