using System.Xml.Linq;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Tests;

public sealed class SvgChartTests
{
    [Fact]
    public void LineChart_is_inline_svg_with_its_title_axes_legend_and_limit_and_names_no_url_but_the_svg_namespace()
    {
        SvgChart.Line[] lines =
        [
            new("voron-documents", "#1F77B4", [(100, 0.4), (200, 0.5), (400, 0.9), (800, 25)]),
            new("sqlite", "#D62728", [(100, 2), (200, double.NaN), (400, 40)]),
        ];

        var svg = SvgChart.LineChart("p99", "p99 <against> offered & more", "offered requests per second", "p99 (ms)", lines,
            new SvgChart.LineOptions { LogX = true, LogY = true, Dots = true, Limits = [new(10, "p99 limit 10 ms")] });

        Assert.DoesNotContain("<?xml", svg, StringComparison.Ordinal);
        var root = XElement.Parse(svg);
        Assert.Equal(SvgChart.Svg + "svg", root.Name);
        var text = string.Join("|", root.Descendants(SvgChart.Svg + "text").Select(e => e.Value));
        foreach (var expected in new[] { "p99 <against> offered & more", "offered requests per second", "p99 (ms)", "voron-documents", "sqlite", "p99 limit 10 ms" })
        {
            Assert.Contains(expected, text, StringComparison.Ordinal);
        }

        Assert.Contains("p99 &lt;against&gt; offered &amp; more", svg, StringComparison.Ordinal);
        Assert.Equal(["http://www.w3.org/2000/svg"], Urls(svg));
        Assert.All(root.Descendants().Select(e => e.Attribute("id")?.Value).OfType<string>(), id => Assert.StartsWith("p99-", id, StringComparison.Ordinal));
    }

    [Fact]
    public void BarChart_draws_a_bar_per_finite_value_with_every_category_and_series_named()
    {
        SvgChart.Bars[] bars =
        [
            new("voron-documents", "#1F77B4", [1, 2, 3, 4]),
            new("litedb", "#8C564B", [5, double.NaN, 7, 8]),
        ];
        string[] categories = ["create-order p50", "create-order p99", "load p50", "load p99"];

        var svg = SvgChart.BarChart("steps", "Latency of each step, closed 16", "ms", categories, bars);

        var root = XElement.Parse(svg);
        var text = string.Join("|", root.Descendants(SvgChart.Svg + "text").Select(e => e.Value));
        foreach (var expected in categories.Concat(["Latency of each step, closed 16", "voron-documents", "litedb", "ms"]))
        {
            Assert.Contains(expected, text, StringComparison.Ordinal);
        }

        // Bars are filled shapes in the series' colours: 4 blue bars and 3 brown ones (the NaN has none), plus one legend swatch each.
        Assert.Equal(4 + 1, Filled(root, "#1f77b4"));
        Assert.Equal(3 + 1, Filled(root, "#8c564b"));
        Assert.Equal(["http://www.w3.org/2000/svg"], Urls(svg));
    }

    [Fact]
    public void Palette_gives_known_engines_fixed_colours_and_never_one_colour_to_two_engines_of_a_report()
    {
        Assert.Equal(Palette.ColorOf("sqlite"), Palette.ColorOf("sqlite"));
        Assert.Equal(Palette.ColorOf("some-engine"), Palette.ColorOf("some-engine"));
        string[] engines = ["voron-documents", "voron-sql", "voron-sql-docs", "sqlite", "litedb", "a", "b", "c", "d", "e"];

        var colors = Palette.Assign(engines);

        Assert.Equal(engines.Length, colors.Values.Distinct().Count());
        Assert.Equal(Palette.ColorOf("sqlite"), colors["sqlite"]);
        Assert.Equal(Palette.ColorOf("voron-documents"), colors["voron-documents"]);
    }

    internal static List<string> Urls(string text) =>
        System.Text.RegularExpressions.Regex.Matches(text, "https?://[^\"' )<>]+").Select(m => m.Value).Distinct().ToList();

    /// <summary>Shapes filled with <paramref name="color"/>: OxyPlot writes fill in a style attribute ("fill:#1f77b4" or rgb) or as fill=.</summary>
    private static int Filled(XElement root, string color)
    {
        var rgb = $"rgb({Convert.ToInt32(color[1..3], 16)},{Convert.ToInt32(color[3..5], 16)},{Convert.ToInt32(color[5..7], 16)})";
        return root.Descendants().Count(e => e.Name.LocalName is "rect" or "polygon" or "path" &&
            (e.Attribute("style")?.Value ?? e.Attribute("fill")?.Value ?? "") is var style &&
            (style.Contains("fill:" + color, StringComparison.OrdinalIgnoreCase) || style.Contains("fill:" + rgb, StringComparison.OrdinalIgnoreCase) ||
             string.Equals(style, color, StringComparison.OrdinalIgnoreCase)));
    }
}
