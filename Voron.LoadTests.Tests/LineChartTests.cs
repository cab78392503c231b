using System.Buffers.Binary;
using System.Xml.Linq;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Tests;

public sealed class LineChartTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Save_writes_a_png_of_the_asked_size_and_an_svg_with_the_titles_and_legend()
    {
        LineChart.Panel[] panels =
        [
            new("Seeks per flush, random-100b", "flush number", "seeks",
                [new("first-fit", "#D62728", [10, 12, 11, 30, 28]), new("sections", "#1F77B4", [9, 9, 10, 12, 11])],
                [new(3, "churn")]),
            new("Seeks per flush, overflow-3kb", "flush number", "seeks", [new("first-fit", "#D62728", [1, 2, 3])], []),
        ];

        var (png, svg) = LineChart.Save(_directory.Path, "chart", 800, 300, panels);

        var image = File.ReadAllBytes(png);
        Assert.Equal([0x89, (byte)'P', (byte)'N', (byte)'G', 0x0D, 0x0A, 0x1A, 0x0A], image[..8]);
        Assert.Equal(800, BinaryPrimitives.ReadInt32BigEndian(image.AsSpan(16)));
        Assert.Equal(600, BinaryPrimitives.ReadInt32BigEndian(image.AsSpan(20)));
        var text = string.Concat(XDocument.Load(svg).Descendants().Where(e => e.Name.LocalName == "text").Select(e => e.Value + " "));
        foreach (var expected in new[] { "random-100b", "overflow-3kb", "flush number", "first-fit", "sections", "churn" })
        {
            Assert.Contains(expected, text, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Save_refuses_a_chart_without_panels() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => LineChart.Save(_directory.Path, "none", 100, 100, []));

    public void Dispose() => _directory.Dispose();
}
