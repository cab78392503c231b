using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Voron;

/// <summary>CRC32C (Castagnoli), computed in hardware through <see cref="BitOperations.Crc32C(uint, ulong)"/>.</summary>
/// <remarks>
/// One CRC instruction waits for the previous one (about 3 cycles of latency), but the CPU can
/// start one every cycle. So a long buffer is cut into blocks of three equal streams whose CRCs
/// run side by side, and the three are joined with the CRC's linearity: the register after A,B,C
/// (each n bytes) is shift(crc(A), 2n) ^ shift(crc(B), n) ^ crc(C), where crc(B) and crc(C)
/// start from 0 and shift multiplies by x^(8n) mod P (Crc32C.Shift.cs). The values are those of
/// the plain serial loop, byte for byte: every checksum on disk is computed here.
/// </remarks>
internal static partial class Crc32C
{
    public static uint Compute(ReadOnlySpan<byte> data) => ~Append(0xFFFFFFFF, data);

    /// <summary>Continues a running (not yet inverted) CRC over more bytes.</summary>
    public static uint Append(uint crc, ReadOnlySpan<byte> data)
    {
        if (data.Length >= 3 * SmallStream)
        {
            while (data.Length >= 3 * LargeStream)
            {
                crc = AppendBlock(crc, data, LargeStream, LargeShift);
                data = data[(3 * LargeStream)..];
            }

            while (data.Length >= 3 * SmallStream)
            {
                crc = AppendBlock(crc, data, SmallStream, SmallShift);
                data = data[(3 * SmallStream)..];
            }
        }

        return AppendSerial(crc, data);
    }

    /// <summary>The plain loop: one CRC chain, a machine word a step.</summary>
    internal static uint AppendSerial(uint crc, ReadOnlySpan<byte> data)
    {
        var words = MemoryMarshal.Cast<byte, ulong>(data);
        foreach (var word in words)
        {
            crc = BitOperations.Crc32C(crc, word); // little-endian machines only, like every format here
        }

        foreach (var b in data[(words.Length * sizeof(ulong))..])
        {
            crc = BitOperations.Crc32C(crc, b);
        }

        return crc;
    }

    /// <summary>
    /// The CRC after the first 3 * <paramref name="stream"/> bytes of <paramref name="data"/>, as
    /// three chains of <paramref name="stream"/> bytes each (a multiple of 8) joined by shifts.
    /// </summary>
    private static uint AppendBlock(uint crc, ReadOnlySpan<byte> data, int stream, in ShiftConstants shift)
    {
        _ = data[(3 * stream) - 1]; // one bounds check for the reads below
        ref var first = ref MemoryMarshal.GetReference(data);
        ref var second = ref Unsafe.Add(ref first, stream);
        ref var third = ref Unsafe.Add(ref first, 2 * stream);
        uint crcB = 0;
        uint crcC = 0;
        for (nint at = 0; at < stream; at += sizeof(ulong))
        {
            crc = BitOperations.Crc32C(crc, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref first, at)));
            crcB = BitOperations.Crc32C(crcB, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref second, at)));
            crcC = BitOperations.Crc32C(crcC, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref third, at)));
        }

        return Shift(crc, shift.TwoStreams) ^ Shift(crcB, shift.OneStream) ^ crcC;
    }
}
