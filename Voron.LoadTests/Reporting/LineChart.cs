using System.Xml.Linq;

namespace Voron.LoadTests.Reporting;

/// <summary>
/// A figure of line charts saved as one SVG file: one or more panels stacked in rows, each with a
/// title, axis labels, a line per series (y against the sample's index), optional labelled
/// vertical markers (a phase change) and a legend. Each panel is drawn by <see cref="SvgChart"/>;
/// browsers show the file, and so does any SVG viewer or printer.
/// </summary>
internal static class LineChart
{
    /// <summary>One line: a name for the legend, a colour ("#RRGGBB") and the values, one per x index.</summary>
    internal sealed record Series(string Name, string Color, IReadOnlyList<double> Values);

    /// <summary>A labelled vertical line at a sample index.</summary>
    internal sealed record Marker(double Index, string Label);

    /// <summary>One chart of the figure.</summary>
    internal sealed record Panel(string Title, string XLabel, string YLabel, IReadOnlyList<Series> Series, IReadOnlyList<Marker> Markers);

    /// <summary>Writes <c>name.svg</c> into <paramref name="directory"/>; returns its path.</summary>
    public static string Save(string directory, string name, int width, int panelHeight, IReadOnlyList<Panel> panels)
    {
        ArgumentOutOfRangeException.ThrowIfZero(panels.Count);
        Directory.CreateDirectory(directory);
        var figure = new XElement(SvgChart.Svg + "svg",
            new XAttribute("width", width),
            new XAttribute("height", panelHeight * panels.Count),
            new XAttribute("viewBox", string.Create(CultureInfo.InvariantCulture, $"0 0 {width} {panelHeight * panels.Count}")));
        for (var i = 0; i < panels.Count; i++)
        {
            var panel = panels[i];
            var lines = panel.Series.Select(s => new SvgChart.Line(s.Name, s.Color, s.Values.Select((v, x) => ((double)x, v)).ToList())).ToList();
            var options = new SvgChart.LineOptions
            {
                Width = width,
                Height = panelHeight,
                XMarkers = [.. panel.Markers.Select(m => new SvgChart.Marker(m.Index, m.Label))],
            };
            var chart = XElement.Parse(SvgChart.LineChart($"{name}-{i + 1}", panel.Title, panel.XLabel, panel.YLabel, lines, options));
            chart.SetAttributeValue("y", panelHeight * i); // a nested <svg> is a viewport placed at (x, y)
            figure.Add(chart);
        }

        var path = Path.Combine(directory, name + ".svg");
        new XDocument(new XDeclaration("1.0", "utf-8", null), figure).Save(path);
        return path;
    }
}
