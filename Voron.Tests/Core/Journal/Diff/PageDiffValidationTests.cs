using Voron.Journal.Diff;
using static Voron.Tests.Core.Journal.Diff.DiffCheck;

namespace Voron.Tests.Core.Journal.Diff;

/// <summary>Malformed diffs (PD1..PD5 of the FORMAT block in PageDiff.cs) are refused before anything is written.</summary>
public sealed class PageDiffValidationTests
{
    /// <summary>Builds a diff from (offset, length) headers; a positive length gets that many payload bytes (0xAB).</summary>
    private static byte[] Diff(params (uint Offset, int Length)[] ranges)
    {
        var bytes = new List<byte>();
        foreach (var (offset, length) in ranges)
        {
            var header = new byte[PageDiff.RangeHeaderSize];
            BinaryPrimitives.WriteUInt32LittleEndian(header, offset);
            BinaryPrimitives.WriteInt32LittleEndian(header.AsSpan(4), length);
            bytes.AddRange(header);
            bytes.AddRange(Enumerable.Repeat((byte)0xAB, Math.Max(length, 0)));
        }

        return [.. bytes];
    }

    /// <summary>Applies a malformed diff and checks the exception names the rule and the diff offset, and the target is untouched.</summary>
    private static void AssertRefused(byte[] diff, string rule, int diffOffset)
    {
        var target = RandomBytes(new Random(1), PageSize);
        var before = (byte[])target.Clone();

        var error = Assert.Throws<InvalidDataException>(() => PageDiff.Apply(diff, target));

        Assert.Contains($"rule {rule} ", error.Message);
        Assert.Contains($"at diff offset {diffOffset}:", error.Message);
        Assert.Equal(before, target);
        Assert.Throws<InvalidDataException>(() => PageDiff.Validate(diff, PageSize));
    }

    [Fact]
    public void Apply_throws_D1_when_a_header_is_truncated()
    {
        var diff = Diff((10, 2)).Concat(new byte[5]).ToArray();

        AssertRefused(diff, "PD1", 10);
    }

    [Fact]
    public void Apply_throws_D1_when_the_diff_is_shorter_than_one_header()
    {
        AssertRefused([1, 0, 0], "PD1", 0);
    }

    [Fact]
    public void Apply_throws_D2_when_a_length_is_zero()
    {
        AssertRefused(Diff((10, 2), (20, 0)), "PD2", 10);
    }

    [Fact]
    public void Apply_throws_D3_when_ranges_overlap()
    {
        AssertRefused(Diff((100, 10), (109, 1)), "PD3", 18);
    }

    [Fact]
    public void Apply_throws_D3_when_ranges_decrease()
    {
        AssertRefused(Diff((100, -10), (50, 1)), "PD3", 8);
    }

    [Fact]
    public void Apply_accepts_ranges_that_touch()
    {
        var target = new byte[PageSize];

        PageDiff.Apply(Diff((100, 10), (110, -5), (115, 1)), target);

        Assert.All(target.AsSpan(100, 10).ToArray(), b => Assert.Equal(0xAB, b));
        Assert.Equal(0xAB, target[115]);
    }

    [Fact]
    public void Apply_throws_D4_when_the_offset_is_past_the_target()
    {
        AssertRefused(Diff(((uint)PageSize, 1)), "PD4", 0);
    }

    [Fact]
    public void Apply_throws_D4_when_the_offset_is_the_largest_uint()
    {
        AssertRefused(Diff((uint.MaxValue, -1)), "PD4", 0);
    }

    [Fact]
    public void Apply_throws_D4_when_new_bytes_run_past_the_end()
    {
        AssertRefused(Diff((PageSize - 3u, 4)), "PD4", 0);
    }

    [Fact]
    public void Apply_throws_D4_when_zeros_run_past_the_end()
    {
        AssertRefused(Diff((0, 1), (PageSize - 3u, -4)), "PD4", 9);
    }

    [Fact]
    public void Apply_throws_D4_when_the_length_is_the_smallest_int()
    {
        AssertRefused(Diff((0, int.MinValue)), "PD4", 0);
    }

    [Fact]
    public void Apply_throws_D5_when_the_payload_is_truncated()
    {
        var diff = Diff((0, 1), (8000, 10))[..^3];

        AssertRefused(diff, "PD5", 9);
    }

    [Fact]
    public void Apply_throws_D5_when_a_huge_length_has_no_payload()
    {
        // In bounds of a 2 GiB target, but the diff holds no payload for it.
        var diff = Diff((0, -1))
            .Concat(Diff((16, 1))[..8])
            .ToArray();
        BinaryPrimitives.WriteInt32LittleEndian(diff.AsSpan(12), int.MaxValue - 16);

        var error = Assert.Throws<InvalidDataException>(() => PageDiff.Validate(diff, int.MaxValue));

        Assert.Contains("rule PD5 ", error.Message);
    }

    [Fact]
    public void Validate_accepts_what_Compute_writes_for_a_target_of_the_same_length()
    {
        var previous = RandomBytes(new Random(2), PageSize);
        var current = (byte[])previous.Clone();
        current.AsSpan(10, 10).Clear();
        current[4000] ^= 1;

        var diff = Compute(previous, current);

        Assert.NotNull(diff);
        PageDiff.Validate(diff, PageSize);
    }
}
