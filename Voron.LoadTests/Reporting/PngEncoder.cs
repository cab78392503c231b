using System.Buffers.Binary;
using System.IO.Compression;
using System.Text;

namespace Voron.LoadTests.Reporting;

/// <summary>
/// A minimal PNG writer (RFC 2083 / ISO 15948): 8-bit RGB, no interlace, every scanline with
/// filter type 0 (none), the image data compressed as one zlib stream (System.IO.Compression).
/// <code>
///   signature 89 50 4E 47 0D 0A 1A 0A
///   chunk     length (4, big-endian) | type (4 ASCII) | data | CRC-32 of type and data (4, big-endian)
///   IHDR      width (4) height (4) bit depth 8, colour type 2 (RGB), compression 0, filter 0, interlace 0
///   IDAT      zlib( for each row: 0x00, then width x (R, G, B) )
///   IEND      empty
/// </code>
/// </summary>
internal static class PngEncoder
{
    private static readonly byte[] Signature = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A];
    private static readonly uint[] CrcTable = BuildCrcTable();

    /// <summary>Encodes <paramref name="rgb"/> (rows top to bottom, 3 bytes per pixel) as a PNG file.</summary>
    public static byte[] Encode(int width, int height, ReadOnlySpan<byte> rgb)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(width, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(height, 1);
        if (rgb.Length != width * height * 3)
        {
            throw new ArgumentException($"Expected {width * height * 3} bytes of RGB for {width}x{height}, got {rgb.Length}.", nameof(rgb));
        }

        using var file = new MemoryStream();
        file.Write(Signature);

        var header = new byte[13];
        BinaryPrimitives.WriteInt32BigEndian(header, width);
        BinaryPrimitives.WriteInt32BigEndian(header.AsSpan(4), height);
        header[8] = 8; // bit depth
        header[9] = 2; // colour type: truecolour RGB
        WriteChunk(file, "IHDR", header);

        using (var compressed = new MemoryStream())
        {
            using (var zlib = new ZLibStream(compressed, CompressionLevel.Optimal, leaveOpen: true))
            {
                for (var row = 0; row < height; row++)
                {
                    zlib.WriteByte(0); // filter type 0: the scanline as is
                    zlib.Write(rgb.Slice(row * width * 3, width * 3));
                }
            }

            WriteChunk(file, "IDAT", compressed.ToArray());
        }

        WriteChunk(file, "IEND", []);
        return file.ToArray();
    }

    private static void WriteChunk(Stream output, string type, ReadOnlySpan<byte> data)
    {
        Span<byte> word = stackalloc byte[4];
        BinaryPrimitives.WriteInt32BigEndian(word, data.Length);
        output.Write(word);
        var typeBytes = Encoding.ASCII.GetBytes(type);
        output.Write(typeBytes);
        output.Write(data);
        var crc = Crc32(Crc32(0xFFFFFFFFu, typeBytes), data) ^ 0xFFFFFFFFu;
        BinaryPrimitives.WriteUInt32BigEndian(word, crc);
        output.Write(word);
    }

    /// <summary>Continues a CRC-32 (ISO 3309, reflected polynomial 0xEDB88320) over <paramref name="data"/>; start at 0xFFFFFFFF and invert at the end.</summary>
    internal static uint Crc32(uint crc, ReadOnlySpan<byte> data)
    {
        foreach (var b in data)
        {
            crc = CrcTable[(crc ^ b) & 0xFF] ^ (crc >> 8);
        }

        return crc;
    }

    private static uint[] BuildCrcTable()
    {
        var table = new uint[256];
        for (uint n = 0; n < 256; n++)
        {
            var c = n;
            for (var k = 0; k < 8; k++)
            {
                c = (c & 1) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            }

            table[n] = c;
        }

        return table;
    }
}
