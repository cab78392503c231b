using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Voron.Compression;

// The decoder checks L1..L7 (FORMAT comment in Lz4Block.cs) before every copy, then copies
// through Unsafe.Add on refs without further bounds checks. Every such access is guarded by:
//   D1. a token or length byte is read at ip only when ip < source.Length, the two offset bytes
//       only when ip + 2 <= source.Length;
//   D2. literals are copied only after L3 put them inside both buffers; the 16-byte fast copy
//       only when 16 bytes are left in both;
//   D3. a match is copied only after L5 (it starts at or after output offset 0) and L6 (it ends
//       inside the destination); its last 8-byte chunk may run up to 7 bytes past the match's
//       end only when those bytes are inside the destination.
//   D4. the shortcut takes a sequence with both nibbles below 15 (at most 14 literals, a match
//       of at most 18 bytes, no length bytes) when 16 bytes are left in the block and 40 in the
//       destination. Its literals and offset then lie inside those 16 bytes, and the block does
//       not end after the literals (L3, L4 hold); its literals and match end within 32 bytes
//       and its copies within 38 (L6 holds). Only L5, and L1 after the match, are checked.
// The fast copies write a few bytes past the sequence they decode: bytes of the destination
// after the returned length are unspecified, and so is the whole destination after a throw.
// Little-endian machines only, like every format here (the offset is read as a native ushort).
internal static partial class Lz4Block
{
    /// <summary>The shortcut reads 16 bytes of literals and offset from the block (D4).</summary>
    private const int ShortcutSourceSlack = 16;

    /// <summary>
    /// The shortcut writes 16 bytes of literals (14 used), then three 8-byte match chunks after
    /// them: at most 14 + 24 bytes (D4).
    /// </summary>
    private const int ShortcutDestinationSlack = 40;

    /// <summary>
    /// For a match with offset 1..7: the smallest multiple of the offset that is at least 8. Once
    /// the first 8 bytes are copied, 8-byte chunks read this far back repeat the same pattern.
    /// </summary>
    private static ReadOnlySpan<byte> PatternDistance => [0, 8, 8, 9, 8, 10, 12, 14];

    /// <summary>
    /// Decodes the LZ4 block <paramref name="source"/> into <paramref name="destination"/> and
    /// returns the number of bytes produced. Pass a destination of exactly the expected size and
    /// check the returned length: the block itself says nothing of its size. A block that breaks
    /// a rule (L1..L7), or would not fit the destination, throws <see cref="InvalidDataException"/>
    /// naming the rule and the source offset; nothing outside either span is read or written.
    /// </summary>
    public static int Decompress(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        if (source.Overlaps(destination))
        {
            throw new ArgumentException("LZ4 source and destination must not overlap.", nameof(destination));
        }

        if (source.IsEmpty)
        {
            ThrowMalformed(0, "L1", "the block is empty (the empty input compresses to one 0x00 byte)");
        }

        ref var src = ref MemoryMarshal.GetReference(source);
        ref var dst = ref MemoryMarshal.GetReference(destination);
        var sourceLength = source.Length;
        var capacity = destination.Length;
        var ip = 0;
        var op = 0;
        var lastMatchStart = -1;

        while (true)
        {
            // D1: ip < sourceLength, checked before the loop and after every match.
            int token = Unsafe.Add(ref src, ip++);
            var literalLength = token >> 4;
            var matchNibble = token & LengthNibbleMax;

            if (literalLength < LengthNibbleMax && matchNibble < LengthNibbleMax
                && ip <= sourceLength - ShortcutSourceSlack && op <= capacity - ShortcutDestinationSlack)
            {
                // D4: the common sequence, far from both ends; L1, L5 are all that is left to check.
                Unsafe.CopyBlockUnaligned(ref Unsafe.Add(ref dst, op), ref Unsafe.Add(ref src, ip), 16);
                ip += literalLength;
                op += literalLength;
                int shortOffset = Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref src, ip));
                if ((uint)(shortOffset - 1) >= (uint)op)
                {
                    ThrowBadOffset(ip, shortOffset, op);
                }

                ip += 2;
                var shortLength = matchNibble + MinMatch;
                lastMatchStart = op;
                if (shortOffset >= sizeof(ulong))
                {
                    ref var to = ref Unsafe.Add(ref dst, op);
                    ref var from = ref Unsafe.Add(ref dst, op - shortOffset);
                    Unsafe.WriteUnaligned(ref to, Unsafe.ReadUnaligned<ulong>(ref from));
                    Unsafe.WriteUnaligned(ref Unsafe.Add(ref to, 8), Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref from, 8)));
                    Unsafe.WriteUnaligned(ref Unsafe.Add(ref to, 16), Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref from, 16)));
                }
                else
                {
                    CopyMatch(ref dst, op, shortOffset, shortLength, capacity);
                }

                op += shortLength;
                if (ip == sourceLength)
                {
                    ThrowEndsWithMatch(ip);
                }

                continue;
            }

            if (literalLength == LengthNibbleMax)
            {
                var extra = ReadLengthBytes(source, ip, capacity, "literal");
                ip += LengthBytesUsed(extra);
                literalLength += extra;
            }

            if (literalLength > sourceLength - ip)
            {
                ThrowLiteralsPastBlock(ip, literalLength, sourceLength);
            }

            if (literalLength > capacity - op)
            {
                ThrowLiteralsPastDestination(ip, literalLength, op, capacity);
            }

            // D2
            if (literalLength <= 16 && ip <= sourceLength - 16 && op <= capacity - 16)
            {
                Unsafe.CopyBlockUnaligned(ref Unsafe.Add(ref dst, op), ref Unsafe.Add(ref src, ip), 16);
            }
            else
            {
                Unsafe.CopyBlockUnaligned(ref Unsafe.Add(ref dst, op), ref Unsafe.Add(ref src, ip), (uint)literalLength);
            }

            ip += literalLength;
            op += literalLength;

            if (ip == sourceLength)
            {
                // The last sequence: literals only.
                if (lastMatchStart >= 0 && (literalLength < LastLiterals || op - lastMatchStart < MatchStartLimit))
                {
                    ThrowEndRulesBroken(ip, literalLength, op - lastMatchStart);
                }

                return op;
            }

            if (ip > sourceLength - 2)
            {
                ThrowMalformed(ip, "L4", "the match offset is cut off by the end of the block");
            }

            int offset = Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref src, ip));
            if (offset == 0 || offset > op)
            {
                ThrowBadOffset(ip, offset, op);
            }

            ip += 2;
            var matchLength = matchNibble;
            if (matchLength == LengthNibbleMax)
            {
                var extra = ReadLengthBytes(source, ip, capacity, "match");
                ip += LengthBytesUsed(extra);
                matchLength += extra;
            }

            matchLength += MinMatch;
            if (matchLength > capacity - op)
            {
                ThrowMatchPastDestination(ip, matchLength, op, capacity);
            }

            lastMatchStart = op;
            CopyMatch(ref dst, op, offset, matchLength, capacity);
            op += matchLength;

            if (ip == sourceLength)
            {
                ThrowEndsWithMatch(ip);
            }
        }
    }

    /// <summary>
    /// Reads the extra length bytes at <paramref name="ip"/> after a nibble of 15 and returns their
    /// sum. Each byte is read inside the block (L2) and the sum is capped by the destination size,
    /// so a long run of 255 bytes ends as soon as it could not be valid.
    /// </summary>
    private static int ReadLengthBytes(ReadOnlySpan<byte> source, int ip, int capacity, string what)
    {
        var sum = 0L;
        while (true)
        {
            if (ip >= source.Length)
            {
                ThrowLengthPastBlock(ip, what, source.Length);
            }

            var value = source[ip++];
            sum += value;
            if (sum > capacity)
            {
                ThrowLengthPastDestination(ip - 1, what, sum, capacity);
            }

            if (value != LengthByteMore)
            {
                return (int)sum;
            }
        }
    }

    /// <summary>
    /// How many length bytes encode <paramref name="sum"/>: one per 255, plus the last (below 255).
    /// Returned rather than passed back through a ref so that the decoder's ip stays in a register.
    /// </summary>
    private static int LengthBytesUsed(int sum) => (sum / LengthByteMore) + 1;

    /// <summary>
    /// Copies <paramref name="length"/> bytes from <paramref name="offset"/> bytes back to
    /// <paramref name="op"/>, front to back, so that an overlapping match repeats its pattern.
    /// </summary>
    private static void CopyMatch(ref byte dst, int op, int offset, int length, int capacity)
    {
        var end = op + length;
        var distance = offset;
        if (offset < sizeof(ulong))
        {
            // Offset 1..7: the first 8 bytes one at a time, each reading a byte already written.
            // From then on every byte equals the one a multiple of the offset >= 8 back, so
            // 8-byte chunks can read from there.
            var head = Math.Min(length, sizeof(ulong));
            for (var i = 0; i < head; i++)
            {
                Unsafe.Add(ref dst, op + i) = Unsafe.Add(ref dst, op - offset + i);
            }

            op += head;
            distance = PatternDistance[offset];
        }

        // Each chunk reads bytes at least 8 back, all final already.
        while (op <= end - sizeof(ulong))
        {
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref dst, op), Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref dst, op - distance)));
            op += sizeof(ulong);
        }

        if (op == end)
        {
            return;
        }

        if (op <= capacity - sizeof(ulong))
        {
            // D3: one more chunk, running past the match's end but not the destination's.
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref dst, op), Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref dst, op - distance)));
            return;
        }

        for (; op < end; op++)
        {
            Unsafe.Add(ref dst, op) = Unsafe.Add(ref dst, op - distance);
        }
    }

    // The throw helpers build their messages out of line, and throw themselves so that the JIT
    // knows they do not return: string formatting inside Decompress, or values kept alive
    // across a call that seems to return, would cost the decoding loop registers.

    [DoesNotReturn]
    private static void ThrowLengthPastBlock(int ip, string what, int sourceLength) =>
        throw Malformed(ip, "L2", $"the {what} length runs past the end of the {sourceLength}-byte block");

    [DoesNotReturn]
    private static void ThrowLengthPastDestination(int ip, string what, long sum, int capacity) =>
        throw Malformed(ip, "L2", $"the {what} length is already {sum}, more than the {capacity}-byte destination");

    [DoesNotReturn]
    private static void ThrowLiteralsPastBlock(int ip, int literalLength, int sourceLength) =>
        throw Malformed(ip, "L3", $"{literalLength} literals run past the end of the {sourceLength}-byte block");

    [DoesNotReturn]
    private static void ThrowLiteralsPastDestination(int ip, int literalLength, int op, int capacity) =>
        throw Malformed(ip, "L3", $"{literalLength} literals at output offset {op} overflow the {capacity}-byte destination");

    [DoesNotReturn]
    private static void ThrowEndRulesBroken(int ip, int literalLength, int lastMatchDistance) =>
        throw Malformed(ip, "L7", $"the block ends {literalLength} literals after its last match, which starts {lastMatchDistance} bytes before the end of the output (at least {LastLiterals} literals and {MatchStartLimit} bytes are required)");

    [DoesNotReturn]
    private static void ThrowBadOffset(int ip, int offset, int op) =>
        throw Malformed(ip, "L5", offset == 0 ? "match offset 0" : $"match offset {offset} reaches before the start of the output (output offset {op})");

    [DoesNotReturn]
    private static void ThrowMatchPastDestination(int ip, int matchLength, int op, int capacity) =>
        throw Malformed(ip, "L6", $"a {matchLength}-byte match at output offset {op} overflows the {capacity}-byte destination");

    [DoesNotReturn]
    private static void ThrowEndsWithMatch(int ip) =>
        throw Malformed(ip, "L1", "the block ends with a match; the last sequence must be literals only");

    [DoesNotReturn]
    private static void ThrowMalformed(int sourceOffset, string rule, string what) => throw Malformed(sourceOffset, rule, what);

    private static InvalidDataException Malformed(int sourceOffset, string rule, string what) =>
        new($"Malformed LZ4 block at source offset {sourceOffset}: {what} ({rule}).");
}
