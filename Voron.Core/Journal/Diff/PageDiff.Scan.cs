using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace Voron.Journal.Diff;

/// <summary>
/// The compares behind Compute: against the previous version or against zeros (a baseline
/// struct each, so the JIT compiles one specialised scan per kind). The vector helpers read
/// through bounds-checked spans (MemoryMarshal.Read, spans of vectors), so there is no unsafe
/// code; the widest vector the hardware accelerates is chosen when the JIT compiles them (the
/// other branches vanish).
/// </summary>
internal static partial class PageDiff
{
    /// <summary>Bytes compared per step when walking a changed range: one bit each in a ulong mask.</summary>
    private const int BlockSize = 64;

    /// <summary>
    /// How many leading bytes <paramref name="first"/> and <paramref name="second"/> (equal
    /// lengths) have in common. MemoryExtensions.CommonPrefixLength compares 16 bytes a step;
    /// this compares 64 (or 32) and lets it finish inside the first block that differs, which is
    /// faster on a page (docs/results/2026-12-06-code-comment-measurements.md).
    /// </summary>
    internal static int CommonPrefixLength(ReadOnlySpan<byte> first, ReadOnlySpan<byte> second)
    {
        var equal = 0;
        if (Vector512.IsHardwareAccelerated)
        {
            equal = EqualBlocks<Vector512<byte>>(first, second) * Vector512<byte>.Count;
        }
        else if (Vector256.IsHardwareAccelerated)
        {
            equal = EqualBlocks<Vector256<byte>>(first, second) * Vector256<byte>.Count;
        }

        return equal + first[equal..].CommonPrefixLength(second[equal..]);
    }

    /// <summary>How many whole leading blocks of <typeparamref name="TBlock"/> size are equal.</summary>
    private static int EqualBlocks<TBlock>(ReadOnlySpan<byte> first, ReadOnlySpan<byte> second)
        where TBlock : struct, IEquatable<TBlock>
    {
        var a = MemoryMarshal.Cast<byte, TBlock>(first);
        var b = MemoryMarshal.Cast<byte, TBlock>(second);
        var count = Math.Min(a.Length, b.Length);
        var i = 0;
        while (i < count && a[i].Equals(b[i]))
        {
            i++;
        }

        return i;
    }

    /// <summary>Bit i set iff <c>first[i] == second[i]</c>, for two spans of BlockSize bytes
    /// (Vector128 is accelerated wherever .NET runs: SSE2 on x64, AdvSimd on Arm64).</summary>
    private static ulong EqualMask(ReadOnlySpan<byte> first, ReadOnlySpan<byte> second)
    {
        if (Vector512.IsHardwareAccelerated)
        {
            return Vector512.Equals(MemoryMarshal.Read<Vector512<byte>>(first), MemoryMarshal.Read<Vector512<byte>>(second))
                .ExtractMostSignificantBits();
        }

        ulong mask = 0;
        if (Vector256.IsHardwareAccelerated)
        {
            for (var i = 0; i < BlockSize; i += Vector256<byte>.Count)
            {
                var equal = Vector256.Equals(MemoryMarshal.Read<Vector256<byte>>(first[i..]), MemoryMarshal.Read<Vector256<byte>>(second[i..]));
                mask |= (ulong)equal.ExtractMostSignificantBits() << i;
            }

            return mask;
        }

        for (var i = 0; i < BlockSize; i += Vector128<byte>.Count)
        {
            var equal = Vector128.Equals(MemoryMarshal.Read<Vector128<byte>>(first[i..]), MemoryMarshal.Read<Vector128<byte>>(second[i..]));
            mask |= (ulong)equal.ExtractMostSignificantBits() << i;
        }

        return mask;
    }

    /// <summary>Bit i set iff <c>bytes[i] == 0</c>, for a span of BlockSize bytes.</summary>
    private static ulong ZeroMask(ReadOnlySpan<byte> bytes)
    {
        if (Vector512.IsHardwareAccelerated)
        {
            return Vector512.Equals(MemoryMarshal.Read<Vector512<byte>>(bytes), Vector512<byte>.Zero).ExtractMostSignificantBits();
        }

        ulong mask = 0;
        if (Vector256.IsHardwareAccelerated)
        {
            for (var i = 0; i < BlockSize; i += Vector256<byte>.Count)
            {
                mask |= (ulong)Vector256.Equals(MemoryMarshal.Read<Vector256<byte>>(bytes[i..]), Vector256<byte>.Zero).ExtractMostSignificantBits() << i;
            }

            return mask;
        }

        for (var i = 0; i < BlockSize; i += Vector128<byte>.Count)
        {
            mask |= (ulong)Vector128.Equals(MemoryMarshal.Read<Vector128<byte>>(bytes[i..]), Vector128<byte>.Zero).ExtractMostSignificantBits() << i;
        }

        return mask;
    }

    /// <summary>What the current version is compared with; a struct per kind so the JIT specialises the scan.</summary>
    private interface IBaseline
    {
        /// <summary>How many bytes from <paramref name="from"/> on are unchanged (up to the end).</summary>
        static abstract int UnchangedPrefix(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, int from);

        /// <summary>Bit i set iff byte <paramref name="at"/> + i is unchanged, for the BlockSize bytes from <paramref name="at"/>.</summary>
        static abstract ulong UnchangedMask(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, int at);

        static abstract bool Differs(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, int at);
    }

    private readonly struct AgainstPrevious : IBaseline
    {
        public static int UnchangedPrefix(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, int from) =>
            CommonPrefixLength(previous[from..], current[from..]);

        public static ulong UnchangedMask(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, int at) =>
            EqualMask(previous.Slice(at, BlockSize), current.Slice(at, BlockSize));

        public static bool Differs(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, int at) => previous[at] != current[at];
    }

    private readonly struct AgainstZeros : IBaseline
    {
        public static int UnchangedPrefix(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, int from)
        {
            var nonZero = current[from..].IndexOfAnyExcept((byte)0);
            return nonZero < 0 ? current.Length - from : nonZero;
        }

        public static ulong UnchangedMask(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, int at) =>
            ZeroMask(current.Slice(at, BlockSize));

        public static bool Differs(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, int at) => current[at] != 0;
    }
}
