using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.InteropServices;

namespace Voron.Journal.Diff;

/// <summary>
/// Computing a diff (writer side); see the FORMAT block in PageDiff.cs.
/// </summary>
/// <remarks>
/// Three steps per changed range. (1) Skip unchanged bytes with a 64-byte (or 32-byte) vector
/// compare; in the common case (a few fields changed) this is nearly the whole page. (2) From
/// the first changed byte, walk 64-byte blocks as bit masks to the last changed byte before a
/// gap of at least RangeHeaderSize unchanged bytes (or the end): shorter gaps are cheaper to
/// carry as payload than to pay a second header for. (3) Encode that range, splitting zero runs
/// out of it as negative ranges where that saves bytes. What a page costs, unchanged, with a few
/// changed fields and with every byte changed:
/// docs/results/2026-12-06-code-comment-measurements.md.
/// </remarks>
internal static partial class PageDiff
{
    /// <summary>
    /// Writes into <paramref name="output"/> the diff that turns <paramref name="previous"/> into
    /// <paramref name="current"/> and returns its length (0 when nothing changed), or
    /// <see cref="NotSmaller"/> when the diff would be at least <c>current.Length</c> bytes or
    /// would not fit <paramref name="output"/>: the caller then stores the full image. An output
    /// of <c>current.Length</c> bytes always suffices; a shorter one caps the diff size the
    /// caller is willing to store. On <see cref="NotSmaller"/> the output holds garbage.
    /// </summary>
    /// <param name="previous">The page(s) as of the previous committed version.</param>
    /// <param name="current">The new version; same length as <paramref name="previous"/> (one page or a run).</param>
    /// <param name="output">Where the diff goes; must not overlap the inputs.</param>
    public static int Compute(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, Span<byte> output)
    {
        if (previous.Length != current.Length)
        {
            throw new ArgumentException(
                $"The previous version has {previous.Length} bytes and the current one {current.Length}; a diff needs equal lengths.",
                nameof(previous));
        }

        return Compute<AgainstPrevious>(previous, current, output);
    }

    /// <summary>
    /// <see cref="Compute"/> against an all-zero previous version (a new page: Encoding 2),
    /// without materialising the zeros. Such a diff never holds a negative range.
    /// </summary>
    public static int ComputeAgainstZeros(ReadOnlySpan<byte> current, Span<byte> output) =>
        Compute<AgainstZeros>(default, current, output);

    private static int Compute<TBaseline>(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, Span<byte> output)
        where TBaseline : struct, IBaseline
    {
        if (current.IsEmpty)
        {
            throw new ArgumentException("A diff needs at least one byte of page.", nameof(current));
        }

        // A diff of current.Length bytes or more saves nothing over the full image.
        var writer = new DiffWriter(output, Math.Min(current.Length - 1, output.Length));
        var position = 0;
        while (true)
        {
            var start = position + TBaseline.UnchangedPrefix(previous, current, position);
            if (start == current.Length)
            {
                return writer.Written;
            }

            var end = ChangedRangeEnd<TBaseline>(previous, current, start);
            if (!EncodeChangedRange(current, start, end, ref writer))
            {
                return NotSmaller;
            }

            position = end;
        }
    }

    /// <summary>
    /// The end of the changed range starting at <paramref name="start"/> (a changed byte): one
    /// past the last changed byte that is followed by RangeHeaderSize unchanged bytes or by the
    /// end. Gaps shorter than a header stay inside the range (merging is cheaper than a header).
    /// </summary>
    /// <remarks>
    /// Walks BlockSize (64) bytes a step with a mask of unchanged bytes (bit i = byte at + i).
    /// A gap of RangeHeaderSize unchanged bytes either crosses the step boundary (the unchanged
    /// bytes since changedEnd plus those before the step's first change) or lies inside the step
    /// (a run of 8 set bits, found by and-ing the mask with itself shifted by 1, 2 and 4). The
    /// last partial step goes byte by byte.
    /// </remarks>
    private static int ChangedRangeEnd<TBaseline>(ReadOnlySpan<byte> previous, ReadOnlySpan<byte> current, int start)
        where TBaseline : struct, IBaseline
    {
        var changedEnd = start + 1;
        var at = start + 1;
        for (; at <= current.Length - BlockSize; at += BlockSize)
        {
            var changed = ~TBaseline.UnchangedMask(previous, current, at);
            if (at - changedEnd + BitOperations.TrailingZeroCount(changed) >= RangeHeaderSize)
            {
                return changedEnd; // also when nothing changed in the step (TrailingZeroCount = 64)
            }

            var unchanged = ~changed;
            var runs = unchanged & (unchanged >> 1);
            runs &= runs >> 2;
            runs &= runs >> 4;
            if (runs != 0)
            {
                // The first run of 8 unchanged bytes; the range ends after the last change before it.
                var before = changed & ((1UL << BitOperations.TrailingZeroCount(runs)) - 1);
                return at + BlockSize - BitOperations.LeadingZeroCount(before);
            }

            changedEnd = at + BlockSize - BitOperations.LeadingZeroCount(changed);
        }

        for (; at < current.Length; at++)
        {
            if (TBaseline.Differs(previous, current, at))
            {
                if (at - changedEnd >= RangeHeaderSize)
                {
                    return changedEnd;
                }

                changedEnd = at + 1;
            }
        }

        return changedEnd;
    }

    /// <summary>
    /// Encodes the changed range [start, end) of <paramref name="current"/>: new bytes, except
    /// zero runs that are cheaper as negative ranges. A run at an edge of the range costs one
    /// extra header, a run in its middle two (it splits the new bytes in two). Edges are measured
    /// exactly; a middle run worth splitting (over 16 bytes) always contains an 8-aligned zero
    /// word, so searching for such words finds every one.
    /// </summary>
    private static bool EncodeChangedRange(ReadOnlySpan<byte> current, int start, int end, ref DiffWriter writer)
    {
        var range = current[start..end];
        if (range.Length <= RangeHeaderSize + 1)
        {
            // Too short to hold a zero run worth a header unless it is all zeros. Most ranges of
            // an update are this short, and a plain loop beats the vector searches' setup here.
            foreach (var b in range)
            {
                if (b != 0)
                {
                    return writer.TryBytes(start, range);
                }
            }

            return writer.TryZeros(start, range.Length);
        }

        var firstNonZero = range.IndexOfAnyExcept((byte)0);
        if (firstNonZero < 0)
        {
            return writer.TryZeros(start, end - start);
        }

        var from = start;
        if (firstNonZero > RangeHeaderSize)
        {
            if (!writer.TryZeros(start, firstNonZero))
            {
                return false;
            }

            from = start + firstNonZero;
        }

        var to = end;
        var trailingZeros = range.Length - 1 - range.LastIndexOfAnyExcept((byte)0);
        if (trailingZeros > RangeHeaderSize)
        {
            to = end - trailingZeros;
        }

        // Middle zero runs of [from, to): both ends of it are non-zero bytes now, or zero runs
        // too short to split, which the search below measures as too short again.
        var words = MemoryMarshal.Cast<byte, ulong>(current);
        var word = WordAtOrAfter(from);
        var wordEnd = to / 8;
        while (word < wordEnd)
        {
            var hit = words[word..wordEnd].IndexOf(0UL);
            if (hit < 0)
            {
                break;
            }

            var zeroWord = (word + hit) * 8;
            var zeroStart = from + current[from..zeroWord].LastIndexOfAnyExcept((byte)0) + 1;
            var nonZeroAfter = current[(zeroWord + 8)..to].IndexOfAnyExcept((byte)0);
            var zeroEnd = nonZeroAfter < 0 ? to : zeroWord + 8 + nonZeroAfter;
            var extraHeaders = (zeroStart > from ? 1 : 0) + (zeroEnd < to ? 1 : 0);
            if (zeroEnd - zeroStart > extraHeaders * RangeHeaderSize)
            {
                if (zeroStart > from && !writer.TryBytes(from, current[from..zeroStart]))
                {
                    return false;
                }

                if (!writer.TryZeros(zeroStart, zeroEnd - zeroStart))
                {
                    return false;
                }

                from = zeroEnd;
            }

            word = WordAtOrAfter(zeroEnd);
        }

        if (from < to && !writer.TryBytes(from, current[from..to]))
        {
            return false;
        }

        return to == end || writer.TryZeros(to, end - to);
    }

    /// <summary>The first 8-aligned word starting at or after byte <paramref name="offset"/> (no overflow near int.MaxValue).</summary>
    private static int WordAtOrAfter(int offset) => (int)(((uint)offset + 7) / 8);

    /// <summary>Appends ranges to the output, refusing any that would take the diff past its limit.</summary>
    private ref struct DiffWriter(Span<byte> output, int limit)
    {
        private const int ShortCopy = 16;

        private readonly Span<byte> _output = output;
        private readonly int _limit = limit;

        public int Written { get; private set; }

        public bool TryBytes(int offset, ReadOnlySpan<byte> bytes)
        {
            if (!TryHeader(offset, bytes.Length, bytes.Length))
            {
                return false;
            }

            var destination = _output.Slice(Written, bytes.Length);
            if (bytes.Length <= ShortCopy)
            {
                // A changed field is a few bytes; a loop is cheaper than a memmove call for it.
                for (var i = 0; i < bytes.Length; i++)
                {
                    destination[i] = bytes[i];
                }
            }
            else
            {
                bytes.CopyTo(destination);
            }

            Written += bytes.Length;
            return true;
        }

        public bool TryZeros(int offset, int count) => TryHeader(offset, -count, 0);

        private bool TryHeader(int offset, int length, int payload)
        {
            if ((long)Written + RangeHeaderSize + payload > _limit)
            {
                return false;
            }

            var header = _output.Slice(Written, RangeHeaderSize);
            BinaryPrimitives.WriteUInt32LittleEndian(header[OffsetOffset..], (uint)offset);
            BinaryPrimitives.WriteInt32LittleEndian(header[LengthOffset..], length);
            Written += RangeHeaderSize;
            return true;
        }
    }
}
