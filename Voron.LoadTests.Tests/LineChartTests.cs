using System.Xml.Linq;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Tests;

public sealed class LineChartTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Save_writes_one_well_formed_svg_of_the_asked_size_with_the_titles_legend_and_markers()
    {
        LineChart.Panel[] panels =
        [
            new("Seeks per flush, random-100b", "flush number", "seeks",
                [new("first-fit", "#D62728", [10, 12, 11, 30, 28]), new("sections", "#1F77B4", [9, 9, 10, 12, 11])],
                [new(3, "churn")]),
            new("Seeks per flush, overflow-3kb", "flush number", "seeks", [new("first-fit", "#D62728", [1, 2, 3])], []),
        ];

        var svg = LineChart.Save(_directory.Path, "chart", 800, 300, panels);

        Assert.Equal(Path.Combine(_directory.Path, "chart.svg"), svg);
        var root = XDocument.Load(svg).Root!;
        Assert.Equal(SvgChart.Svg + "svg", root.Name);
        Assert.Equal("800", root.Attribute("width")?.Value);
        Assert.Equal("600", root.Attribute("height")?.Value);
        var text = string.Concat(root.Descendants(SvgChart.Svg + "text").Select(e => e.Value + " "));
        foreach (var expected in new[] { "random-100b", "overflow-3kb", "flush number", "first-fit", "sections", "churn" })
        {
            Assert.Contains(expected, text, StringComparison.Ordinal);
        }

        var ids = root.Descendants().Select(e => e.Attribute("id")?.Value).OfType<string>().ToList();
        Assert.Equal(ids.Count, ids.Distinct().Count()); // the two panels' clip paths do not share an id
    }

    [Fact]
    public void Save_refuses_a_chart_without_panels() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => LineChart.Save(_directory.Path, "none", 100, 100, []));

    public void Dispose() => _directory.Dispose();
}
