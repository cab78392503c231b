using System.Runtime.InteropServices;
using System.Numerics;

namespace Voron;

/// <summary>CRC32C (Castagnoli), computed in hardware through <see cref="BitOperations.Crc32C(uint, ulong)"/>.</summary>
internal static class Crc32C
{
    public static uint Compute(ReadOnlySpan<byte> data) => ~Append(0xFFFFFFFF, data);

    /// <summary>Continues a running (not yet inverted) CRC over more bytes.</summary>
    public static uint Append(uint crc, ReadOnlySpan<byte> data)
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
}
