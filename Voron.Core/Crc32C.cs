using System.Buffers.Binary;
using System.Numerics;

namespace Voron;

/// <summary>CRC32C (Castagnoli), computed in hardware through <see cref="BitOperations.Crc32C(uint, ulong)"/>.</summary>
internal static class Crc32C
{
    public static uint Compute(ReadOnlySpan<byte> data) => ~Append(0xFFFFFFFF, data);

    /// <summary>Continues a running (not yet inverted) CRC over more bytes.</summary>
    public static uint Append(uint crc, ReadOnlySpan<byte> data)
    {
        while (data.Length >= 8)
        {
            crc = BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(data));
            data = data[8..];
        }

        foreach (var b in data)
        {
            crc = BitOperations.Crc32C(crc, b);
        }

        return crc;
    }
}
