using System.Buffers.Binary;
using System.IO.Compression;
using System.Text;
using Voron.LoadTests.Reporting;

namespace Voron.Tests.LoadTests;

public sealed class PngChartTests
{
    [Fact]
    public void Crc32_matches_the_check_value_and_the_IEND_chunk()
    {
        Assert.Equal(0xCBF43926u, PngEncoder.Crc32(0xFFFFFFFFu, "123456789"u8) ^ 0xFFFFFFFFu); // the standard check value
        Assert.Equal(0xAE426082u, PngEncoder.Crc32(0xFFFFFFFFu, "IEND"u8) ^ 0xFFFFFFFFu); // every PNG ends with it
    }

    [Fact]
    public void Encode_writes_signature_header_scanlines_and_valid_chunk_checksums()
    {
        var rgb = new byte[3 * 2 * 3];
        rgb[0] = 255; // pixel (0, 0) red
        rgb[3 * 3 + 3 * 1 + 2] = 200; // pixel (1, 1) blue 200

        var png = PngEncoder.Encode(3, 2, rgb);

        Assert.Equal(new byte[] { 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A }, png[..8]);
        var chunks = Chunks(png);
        Assert.Equal(["IHDR", "IDAT", "IEND"], chunks.Select(c => c.Type));
        var header = chunks[0].Data;
        Assert.Equal(3, BinaryPrimitives.ReadInt32BigEndian(header));
        Assert.Equal(2, BinaryPrimitives.ReadInt32BigEndian(header.AsSpan(4)));
        Assert.Equal(new byte[] { 8, 2, 0, 0, 0 }, header[8..]);

        using var zlib = new ZLibStream(new MemoryStream(chunks[1].Data), CompressionMode.Decompress);
        using var raw = new MemoryStream();
        zlib.CopyTo(raw);
        var scanlines = raw.ToArray();
        Assert.Equal(2 * (1 + 3 * 3), scanlines.Length);
        Assert.Equal(0, scanlines[0]); // filter type 0
        Assert.Equal(0, scanlines[10]);
        Assert.Equal(rgb[..9], scanlines[1..10]);
        Assert.Equal(rgb[9..], scanlines[11..]);
    }

    [Fact]
    public void Plot_draws_series_in_their_colours_inside_the_axes()
    {
        var chart = new PngChart(400, 300);
        var red = new PngChart.Rgb(255, 0, 0);

        chart.Plot("T", "x", "y", [new PngChart.Series("a", red, [10, 10, 10])]);

        var redPixels = 0;
        for (var y = 0; y < chart.Height; y++)
        {
            for (var x = 0; x < chart.Width; x++)
            {
                redPixels += chart.GetPixel(x, y) == red ? 1 : 0;
            }
        }

        Assert.True(redPixels > 200, $"{redPixels} red pixels"); // the line and the legend box
        Assert.Equal(PngChart.Black, chart.GetPixel(90, 100)); // the y axis
        Assert.Equal(10, PngChart.NiceCeiling(10));
        Assert.Equal(250, PngChart.NiceCeiling(201));
    }

    private static List<(string Type, byte[] Data)> Chunks(byte[] png)
    {
        var chunks = new List<(string, byte[])>();
        for (var at = 8; at < png.Length;)
        {
            var length = BinaryPrimitives.ReadInt32BigEndian(png.AsSpan(at));
            var typeAndData = png.AsSpan(at + 4, 4 + length);
            var crc = BinaryPrimitives.ReadUInt32BigEndian(png.AsSpan(at + 8 + length));
            Assert.Equal(crc, PngEncoder.Crc32(0xFFFFFFFFu, typeAndData) ^ 0xFFFFFFFFu);
            chunks.Add((Encoding.ASCII.GetString(typeAndData[..4]), typeAndData[4..].ToArray()));
            at += 12 + length;
        }

        return chunks;
    }
}
