using ScottPlot;
using SkiaSharp;

namespace Voron.LoadTests.Reporting;

/// <summary>
/// Line charts for the reports, drawn by ScottPlot: one or more panels stacked in rows, each with a
/// title, axis labels, a line per series (y against the sample's index), optional labelled
/// vertical markers (a phase change) and a legend; saved as PNG (for people) and SVG (for pages
/// and print) side by side.
/// </summary>
internal static class LineChart
{
    /// <summary>One line: a name for the legend, a colour ("#RRGGBB") and the values, one per x index.</summary>
    internal sealed record Series(string Name, string Color, IReadOnlyList<double> Values);

    /// <summary>A labelled vertical line at a sample index.</summary>
    internal sealed record Marker(double Index, string Label);

    /// <summary>One chart of the figure.</summary>
    internal sealed record Panel(string Title, string XLabel, string YLabel, IReadOnlyList<Series> Series, IReadOnlyList<Marker> Markers);

    /// <summary>Writes <c>name.png</c> and <c>name.svg</c> into <paramref name="directory"/>; returns their paths.</summary>
    public static (string Png, string Svg) Save(string directory, string name, int width, int panelHeight, IReadOnlyList<Panel> panels)
    {
        ArgumentOutOfRangeException.ThrowIfZero(panels.Count);
        Directory.CreateDirectory(directory);
        var figure = new Multiplot();
        while (figure.Subplots.Count > 0)
        {
            figure.Subplots.RemoveAt(0);
        }

        foreach (var panel in panels)
        {
            figure.Subplots.Add(Draw(panel));
        }

        figure.Layout = new ScottPlot.MultiplotLayouts.Rows();
        var height = panelHeight * panels.Count;
        var area = new PixelRect(0, width, height, 0);

        var png = Path.Combine(directory, name + ".png");
        using (var surface = SKSurface.Create(new SKImageInfo(width, height)))
        {
            surface.Canvas.Clear(SKColors.White);
            figure.Render(surface.Canvas, area);
            using var image = surface.Snapshot();
            using var data = image.Encode(SKEncodedImageFormat.Png, 100);
            File.WriteAllBytes(png, data.ToArray());
        }

        var svg = Path.Combine(directory, name + ".svg");
        using (var stream = File.Create(svg))
        {
            using var canvas = SKSvgCanvas.Create(SKRect.Create(width, height), stream);
            figure.Render(canvas, area);
        }

        return (png, svg);
    }

    private static Plot Draw(Panel panel)
    {
        var plot = new Plot();
        foreach (var series in panel.Series)
        {
            var line = plot.Add.Signal(series.Values.ToArray());
            line.LegendText = series.Name;
            line.Color = Color.FromHex(series.Color);
            line.LineWidth = 2;
        }

        foreach (var marker in panel.Markers)
        {
            var line = plot.Add.VerticalLine(marker.Index);
            line.Text = marker.Label;
            line.Color = Colors.Gray;
            line.LinePattern = LinePattern.Dashed;
        }

        plot.Title(panel.Title);
        plot.XLabel(panel.XLabel);
        plot.YLabel(panel.YLabel);
        plot.ShowLegend(Alignment.UpperRight);
        plot.Axes.SetLimitsX(0, Math.Max(1, panel.Series.Max(s => s.Values.Count) - 1));
        plot.Axes.SetLimitsY(0, Math.Max(1, panel.Series.SelectMany(s => s.Values).DefaultIfEmpty(1).Max() * 1.1));
        return plot;
    }
}
