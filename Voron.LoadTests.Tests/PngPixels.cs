using System.Buffers.Binary;
using System.IO.Compression;

namespace Voron.LoadTests.Tests;

/// <summary>
/// Just enough of a PNG decoder to look at a screenshot: 8-bit RGB or RGBA, not interlaced (what
/// Chromium writes). The IDAT chunks are one zlib stream; each decoded row starts with its filter
/// type (0 none, 1 sub, 2 up, 3 average, 4 Paeth), undone here. Pixels come back as 0xRRGGBB.
/// </summary>
internal static class PngPixels
{
    public static (int Width, int Height, int[] Pixels) Decode(byte[] png)
    {
        Assert.Equal([0x89, (byte)'P', (byte)'N', (byte)'G', 0x0D, 0x0A, 0x1A, 0x0A], png[..8]);
        int width = 0, height = 0, channels = 0;
        using var idat = new MemoryStream();
        for (var at = 8; at < png.Length;)
        {
            var length = BinaryPrimitives.ReadInt32BigEndian(png.AsSpan(at));
            var type = System.Text.Encoding.ASCII.GetString(png, at + 4, 4);
            var data = png.AsSpan(at + 8, length);
            if (type == "IHDR")
            {
                width = BinaryPrimitives.ReadInt32BigEndian(data);
                height = BinaryPrimitives.ReadInt32BigEndian(data[4..]);
                Assert.Equal(8, data[8]); // bit depth
                channels = data[9] switch { 2 => 3, 6 => 4, var c => throw new NotSupportedException($"PNG colour type {c}") };
                Assert.Equal(0, data[12]); // not interlaced
            }
            else if (type == "IDAT")
            {
                idat.Write(data);
            }

            at += 12 + length;
        }

        idat.Position = 0;
        using var zlib = new ZLibStream(idat, CompressionMode.Decompress);
        var stride = width * channels;
        var raw = new byte[height * (stride + 1)];
        zlib.ReadExactly(raw);
        var previous = new byte[stride];
        var row = new byte[stride];
        var pixels = new int[width * height];
        for (var y = 0; y < height; y++)
        {
            var filter = raw[y * (stride + 1)];
            var line = raw.AsSpan((y * (stride + 1)) + 1, stride);
            for (var x = 0; x < stride; x++)
            {
                int left = x >= channels ? row[x - channels] : 0, up = previous[x], upLeft = x >= channels ? previous[x - channels] : 0;
                row[x] = (byte)(line[x] + filter switch
                {
                    0 => 0,
                    1 => left,
                    2 => up,
                    3 => (left + up) / 2,
                    4 => Paeth(left, up, upLeft),
                    _ => throw new InvalidDataException($"PNG filter {filter}"),
                });
            }

            for (var x = 0; x < width; x++)
            {
                pixels[(y * width) + x] = (row[x * channels] << 16) | (row[(x * channels) + 1] << 8) | row[(x * channels) + 2];
            }

            (previous, row) = (row, previous);
        }

        return (width, height, pixels);
    }

    private static int Paeth(int a, int b, int c)
    {
        int p = a + b - c, pa = Math.Abs(p - a), pb = Math.Abs(p - b), pc = Math.Abs(p - c);
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
}
