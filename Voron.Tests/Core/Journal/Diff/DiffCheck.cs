using Voron.Journal.Diff;

namespace Voron.Tests.Core.Journal.Diff;

/// <summary>Helpers shared by the page-diff tests: compute, apply, compare, and a reference size.</summary>
internal static class DiffCheck
{
    public const int PageSize = Constants.PageSize;

    /// <summary>The diff bytes, or null when Compute returned NotSmaller.</summary>
    public static byte[]? Compute(byte[] previous, byte[] current)
    {
        var output = new byte[current.Length];
        var size = PageDiff.Compute(previous, current, output);
        return size == PageDiff.NotSmaller ? null : output[..size];
    }

    /// <summary>Applies <paramref name="diff"/> to a copy of <paramref name="previous"/>.</summary>
    public static byte[] Apply(byte[] diff, byte[] previous)
    {
        var target = (byte[])previous.Clone();
        PageDiff.Apply(diff, target);
        return target;
    }

    /// <summary>Computes a diff that must be smaller than the page, checks it reproduces <paramref name="current"/>, and returns it.</summary>
    public static byte[] RoundTrip(byte[] previous, byte[] current, string context = "")
    {
        var diff = Compute(previous, current) ?? throw new InvalidOperationException($"{context}Compute returned NotSmaller");
        var applied = Apply(diff, previous);
        var mismatch = applied.AsSpan().CommonPrefixLength(current);
        Assert.True(mismatch == current.Length, $"{context}the applied diff differs from the new version at byte {mismatch}");
        return diff;
    }

    /// <summary>
    /// The smallest diff made of new-byte ranges only: every changed byte covered, and a gap of
    /// unchanged bytes between two changes carried as payload when shorter than a header. Each
    /// gap's choice is independent, so this is optimal for such diffs; Compute, which may also
    /// split out zero runs, must never be bigger.
    /// </summary>
    public static long PositiveOnlyOptimalSize(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current)
    {
        long size = 0;
        var lastChangeEnd = -1;
        for (var i = 0; i < current.Length; i++)
        {
            if (previous[i] == current[i])
            {
                continue;
            }

            var gap = i - lastChangeEnd;
            size += lastChangeEnd < 0 || gap >= PageDiff.RangeHeaderSize ? PageDiff.RangeHeaderSize + 1 : gap + 1;
            lastChangeEnd = i + 1;
        }

        return size;
    }

    public static byte[] RandomBytes(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }

    /// <summary>The ranges of a valid diff, as (offset, length) with the sign of the format.</summary>
    public static List<(uint Offset, int Length)> Ranges(ReadOnlySpan<byte> diff)
    {
        var ranges = new List<(uint, int)>();
        var at = 0;
        while (at < diff.Length)
        {
            var offset = BinaryPrimitives.ReadUInt32LittleEndian(diff[at..]);
            var length = BinaryPrimitives.ReadInt32LittleEndian(diff[(at + 4)..]);
            ranges.Add((offset, length));
            at += PageDiff.RangeHeaderSize + Math.Max(length, 0);
        }

        return ranges;
    }
}
