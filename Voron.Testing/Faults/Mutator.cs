using System.Buffers.Binary;

namespace Voron.Testing.Faults;

/// <summary>
/// Random mutations of on-disk bytes for the fuzz tests: bit flips, random bytes, boundary
/// integers (0, -1, 2^30, 2^31 - 1, 2^31, 2^51, 2^63 - 1, page and sector sizes ...) written over
/// fields, little-endian or (for keys) big-endian,
/// zeroed or 0xFF-filled ranges, and bytes copied from elsewhere in the structure.
/// </summary>
internal static class Mutator
{
    private static readonly long[] Interesting =
    [
        0, 1, 2, -1, -2, 7, 8, 63, 64, 127, 128, 255, 256, 511, 512, 4095, 4096, 4097, 8191, 8192, 8193, 16384, 65535, 65536,
        int.MaxValue, int.MaxValue - 1, int.MaxValue - 63, int.MaxValue - 64, int.MaxValue - 8191, (long)int.MaxValue + 1, int.MinValue,
        uint.MaxValue, 262143, 262144, long.MaxValue, long.MinValue, long.MaxValue - 1, 1L << 32, 1L << 40, 0x7FFF_F000, 0x7FFF_F001,
        1 << 30, (1 << 30) - 1, 1 << 29, 1L << 51, 1L << 50, long.MaxValue / 8192, (long.MaxValue / 8192) + 1, 65, 66,
    ];

    /// <summary>Applies 1..4 mutations to <paramref name="bytes"/>[<paramref name="from"/>..<paramref name="from"/> + <paramref name="length"/>).</summary>
    public static void Mutate(Span<byte> bytes, Random random, int from = 0, int length = -1)
    {
        if (length < 0)
        {
            length = bytes.Length - from;
        }

        if (length <= 0)
        {
            return;
        }

        var region = bytes.Slice(from, length);
        var count = random.Next(1, 5);
        for (var i = 0; i < count; i++)
        {
            switch (random.Next(6))
            {
                case 0:
                    region[random.Next(region.Length)] ^= (byte)(1 << random.Next(8));
                    break;
                case 1:
                    region[random.Next(region.Length)] = (byte)random.Next(256);
                    break;
                case 2:
                    WriteInteresting(region, random);
                    break;
                case 3:
                    Fill(region, random, 0);
                    break;
                case 4:
                    Fill(region, random, 0xFF);
                    break;
                default:
                    var size = random.Next(1, Math.Min(64, region.Length) + 1);
                    var source = random.Next(region.Length - size + 1);
                    var target = random.Next(region.Length - size + 1);
                    region.Slice(source, size).ToArray().CopyTo(region[target..]);
                    break;
            }
        }
    }

    private static void WriteInteresting(Span<byte> region, Random random)
    {
        var value = Interesting[random.Next(Interesting.Length)] + (random.Next(4) == 0 ? random.Next(-2, 3) : 0);
        var width = new[] { 1, 2, 4, 8 }[random.Next(4)];
        if (region.Length < width)
        {
            return;
        }

        var at = random.Next(region.Length - width + 1);
        if (random.Next(2) == 0)
        {
            at -= at % width; // fields are aligned
        }

        var slot = region.Slice(at, width);
        var bigEndian = random.Next(4) == 0; // keys (block numbers, ids) are stored big-endian
        switch (width)
        {
            case 1:
                slot[0] = (byte)value;
                break;
            case 2 when bigEndian:
                BinaryPrimitives.WriteInt16BigEndian(slot, (short)value);
                break;
            case 2:
                BinaryPrimitives.WriteInt16LittleEndian(slot, (short)value);
                break;
            case 4 when bigEndian:
                BinaryPrimitives.WriteInt32BigEndian(slot, (int)value);
                break;
            case 4:
                BinaryPrimitives.WriteInt32LittleEndian(slot, (int)value);
                break;
            case 8 when bigEndian:
                BinaryPrimitives.WriteInt64BigEndian(slot, value);
                break;
            default:
                BinaryPrimitives.WriteInt64LittleEndian(slot, value);
                break;
        }
    }

    private static void Fill(Span<byte> region, Random random, byte value)
    {
        var size = random.Next(1, Math.Min(256, region.Length) + 1);
        region.Slice(random.Next(region.Length - size + 1), size).Fill(value);
    }
}
