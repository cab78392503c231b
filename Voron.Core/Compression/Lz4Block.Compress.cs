using System.Diagnostics.CodeAnalysis;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Voron.Compression;

// The compressor is greedy and single-pass. A hash table maps the hash of the 4 bytes at a
// position to the last position seen with that hash. At each position it looks up the 4 bytes
// there; a candidate at most MaxOffset back with the same 4 bytes is a match, which is extended
// backwards over pending literals and forwards as far as the bytes agree, then emitted as one
// sequence. After a run of misses the search skips ahead faster (1 more byte of step every 64
// misses, times the acceleration), so incompressible input passes quickly.
//
// Reads and writes go through Unsafe.Add on refs into the spans, without bounds checks. Every
// such access is guarded by one of these, checked where the position is set:
//   C1. a position is hashed or looked up only while ip <= length - MatchStartLimit, so the
//       4 bytes read there (and at any earlier position) lie inside the input;
//   C2. a candidate is an earlier search position (the table only holds positions < ip), or 0;
//   C3. a match never extends past length - LastLiterals (CommonLength's limit), whose 8-byte
//       reads stop there too;
//   C4. a sequence is written only after checking that its worst-case size fits the destination;
//       the 16-byte literal copy only when 16 bytes are left in both spans.
// A destination of MaxCompressedLength bytes always passes C4: every sequence with a match is
// no longer than the bytes it covers plus one length byte per 255 literals.
// Little-endian machines only, like every format here (the match extension counts trailing zero
// bits of the first differing word).
internal static partial class Lz4Block
{
    internal const int DefaultAcceleration = 1;

    internal const int MaxAcceleration = 65536;

    /// <summary>At most 2^14 table entries (64 KiB of positions per thread).</summary>
    private const int MaxHashLog = 14;

    /// <summary>Small inputs get a small table: clearing it is part of every call.</summary>
    private const int MinHashLog = 8;

    /// <summary>Knuth's multiplicative hash constant (2^32 / golden ratio, odd).</summary>
    private const uint HashMultiplier = 2654435761u;

    /// <summary>The search step grows by one every 2^SkipTrigger misses.</summary>
    private const int SkipTrigger = 6;

    /// <summary>Reused per thread so that compressing allocates nothing after the first call.</summary>
    [ThreadStatic]
    private static int[]? _hashTable;

    /// <summary>
    /// Compresses <paramref name="source"/> into <paramref name="destination"/> as one LZ4 block
    /// and returns the number of bytes written. Size the destination with
    /// <see cref="MaxCompressedLength"/>; a smaller one may throw <see cref="ArgumentException"/>
    /// (bytes already written to it are then meaningless). <paramref name="acceleration"/> 1 gives
    /// the best ratio; larger values skip ahead faster after misses and trade ratio for speed.
    /// </summary>
    public static int Compress(ReadOnlySpan<byte> source, Span<byte> destination, int acceleration = DefaultAcceleration)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(acceleration, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(acceleration, MaxAcceleration);
        if (source.Length > MaxInputLength)
        {
            throw new ArgumentException($"LZ4 input of {source.Length} bytes exceeds the {MaxInputLength}-byte limit.", nameof(source));
        }

        if (source.Overlaps(destination))
        {
            throw new ArgumentException("LZ4 source and destination must not overlap.", nameof(destination));
        }

        if (source.Length < MinCompressibleLength)
        {
            return WriteLastLiterals(source, destination, anchor: 0, op: 0);
        }

        var hashLog = Math.Clamp(BitOperations.Log2((uint)source.Length - 1) + 1, MinHashLog, MaxHashLog);
        var table = (_hashTable ??= new int[1 << MaxHashLog]).AsSpan(0, 1 << hashLog);
        table.Clear(); // every slot says "position 0"; C2 and the byte comparison make that harmless
        return CompressBlock(source, destination, table, 32 - hashLog, acceleration);
    }

    private static int CompressBlock(ReadOnlySpan<byte> source, Span<byte> destination, Span<int> table, int hashShift, int acceleration)
    {
        ref var src = ref MemoryMarshal.GetReference(source);
        ref var dst = ref MemoryMarshal.GetReference(destination);
        ref var slots = ref MemoryMarshal.GetReference(table);
        var length = source.Length;
        var capacity = destination.Length;
        var matchStartLimit = length - MatchStartLimit; // C1: matches start at or before this
        var matchEndLimit = length - LastLiterals;      // C3: matches end at or before this
        var anchor = 0; // first byte not yet written out
        var op = 0;
        var ip = 1;     // position 0 is in the table already: every slot holds 0

        while (true)
        {
            // Find a match at or after ip.
            int candidate;
            var attempts = acceleration << SkipTrigger;
            while (true)
            {
                if (ip > matchStartLimit)
                {
                    return WriteLastLiterals(source, destination, anchor, op);
                }

                var sequence = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref src, ip));
                ref var slot = ref Unsafe.Add(ref slots, (int)((sequence * HashMultiplier) >> hashShift));
                candidate = slot;
                slot = ip;
                if (ip - candidate <= MaxOffset && Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref src, candidate)) == sequence)
                {
                    break;
                }

                ip += attempts++ >> SkipTrigger;
            }

            // Extend backwards over pending literals, then forwards.
            while (ip > anchor && candidate > 0 && Unsafe.Add(ref src, ip - 1) == Unsafe.Add(ref src, candidate - 1))
            {
                ip--;
                candidate--;
            }

            var matchLength = MinMatch + CommonLength(ref src, ip + MinMatch, candidate + MinMatch, matchEndLimit);
            var literalLength = ip - anchor;

            // C4: token, literal length bytes, literals, offset, match length bytes.
            if (literalLength + (literalLength / 255) + (matchLength / 255) + 5 > capacity - op)
            {
                ThrowDestinationTooSmall(source.Length, capacity);
            }

            ref var token = ref Unsafe.Add(ref dst, op++);
            int tokenValue;
            if (literalLength >= LengthNibbleMax)
            {
                tokenValue = LengthNibbleMax << 4;
                op = WriteLengthBytes(ref dst, op, literalLength - LengthNibbleMax);
            }
            else
            {
                tokenValue = literalLength << 4;
            }

            if (literalLength <= 16 && anchor + 16 <= length && op + 16 <= capacity)
            {
                // Copies a few bytes too many; the next fields overwrite them.
                Unsafe.CopyBlockUnaligned(ref Unsafe.Add(ref dst, op), ref Unsafe.Add(ref src, anchor), 16);
            }
            else
            {
                Unsafe.CopyBlockUnaligned(ref Unsafe.Add(ref dst, op), ref Unsafe.Add(ref src, anchor), (uint)literalLength);
            }

            op += literalLength;
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref dst, op), (ushort)(ip - candidate));
            op += 2;

            var matchCode = matchLength - MinMatch;
            if (matchCode >= LengthNibbleMax)
            {
                tokenValue |= LengthNibbleMax;
                op = WriteLengthBytes(ref dst, op, matchCode - LengthNibbleMax);
            }
            else
            {
                tokenValue |= matchCode;
            }

            token = (byte)tokenValue;
            ip += matchLength;
            anchor = ip;
            if (ip > matchStartLimit)
            {
                return WriteLastLiterals(source, destination, anchor, op);
            }

            // Remember a position inside the match just emitted: the next match often starts
            // where this one's bytes recur.
            var inside = ip - 2;
            var insideSequence = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref src, inside));
            Unsafe.Add(ref slots, (int)((insideSequence * HashMultiplier) >> hashShift)) = inside;
        }
    }

    /// <summary>
    /// How many bytes at <paramref name="at"/> equal those at the earlier <paramref name="earlier"/>,
    /// stopping at <paramref name="limit"/> (C3).
    /// </summary>
    private static int CommonLength(ref byte src, int at, int earlier, int limit)
    {
        var start = at;
        while (at <= limit - sizeof(ulong))
        {
            var difference = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref src, at)) ^ Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref src, earlier));
            if (difference != 0)
            {
                return at - start + (BitOperations.TrailingZeroCount(difference) >> 3);
            }

            at += sizeof(ulong);
            earlier += sizeof(ulong);
        }

        while (at < limit && Unsafe.Add(ref src, at) == Unsafe.Add(ref src, earlier))
        {
            at++;
            earlier++;
        }

        return at - start;
    }

    /// <summary>Writes the extra length bytes for <paramref name="rest"/> (the length minus 15).</summary>
    private static int WriteLengthBytes(ref byte dst, int op, int rest)
    {
        var full = rest / LengthByteMore;
        Unsafe.InitBlockUnaligned(ref Unsafe.Add(ref dst, op), LengthByteMore, (uint)full);
        op += full;
        Unsafe.Add(ref dst, op++) = (byte)(rest - (full * LengthByteMore));
        return op;
    }

    /// <summary>The last sequence: the literals from <paramref name="anchor"/> to the end, no match.</summary>
    private static int WriteLastLiterals(ReadOnlySpan<byte> source, Span<byte> destination, int anchor, int op)
    {
        var literalLength = source.Length - anchor;
        if (literalLength + (literalLength / 255) + 2 > destination.Length - op)
        {
            ThrowDestinationTooSmall(source.Length, destination.Length);
        }

        if (literalLength >= LengthNibbleMax)
        {
            destination[op++] = LengthNibbleMax << 4;
            op = WriteLengthBytes(ref MemoryMarshal.GetReference(destination), op, literalLength - LengthNibbleMax);
        }
        else
        {
            destination[op++] = (byte)(literalLength << 4);
        }

        source[anchor..].CopyTo(destination[op..]);
        return op + literalLength;
    }

    [DoesNotReturn]
    private static void ThrowDestinationTooSmall(int sourceLength, int capacity) =>
        throw new ArgumentException(
            $"LZ4 destination of {capacity} bytes is too small for {sourceLength} input bytes; size it with MaxCompressedLength ({MaxCompressedLength(sourceLength)}).");
}
