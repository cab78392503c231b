using System.Xml.Linq;
using OxyPlot;
using OxyPlot.Annotations;
using OxyPlot.Axes;
using OxyPlot.Legends;
using OxyPlot.Series;

namespace Voron.LoadTests.Reporting;

/// <summary>
/// The reports' charts, as SVG text (no files), so a page can inline them: line charts (x numeric:
/// seconds, an offered rate, a flush number; several series; an optional horizontal limit and
/// labelled vertical markers) and grouped horizontal bar charts (categories × series). Drawn by
/// OxyPlot.Core's <see cref="SvgExporter"/>, which is managed code only: text is measured by its
/// <see cref="PdfRenderContext"/> with the PDF standard fonts' metrics (Helvetica, which Arial and
/// Liberation Sans match; <see cref="PixelTextMeasurer"/>), so no native library and no installed
/// font is needed to draw.
/// </summary>
internal static class SvgChart
{
    /// <summary>The fonts the SVG asks the viewer for; the widths are measured as Helvetica's.</summary>
    private const string Font = "Arial";
    private const string ViewerFonts = "Arial, Helvetica, 'Liberation Sans', sans-serif";

    internal static readonly XNamespace Svg = "http://www.w3.org/2000/svg";

    /// <summary>One line: a name for the legend, a colour ("#RRGGBB") and its points (NaN y: a gap); dashed for a reference (the offered rate).</summary>
    internal sealed record Line(string Name, string Color, IReadOnlyList<(double X, double Y)> Points, bool Dashed = false);

    /// <summary>One series of bars: a name for the legend, a colour, a value per category (NaN: no bar).</summary>
    internal sealed record Bars(string Name, string Color, IReadOnlyList<double> Values);

    /// <summary>A labelled line across the chart: horizontal at a y (a limit) or vertical at an x (a phase change).</summary>
    internal sealed record Marker(double At, string Label);

    /// <summary>How a line chart's axes and guides are drawn.</summary>
    internal sealed record LineOptions
    {
        public int Width { get; init; } = 900;

        public int Height { get; init; } = 360;

        /// <summary>Horizontal guide lines (e.g. "p99 limit 10 ms").</summary>
        public IReadOnlyList<Marker> Limits { get; init; } = [];

        /// <summary>Vertical guide lines (e.g. where a phase starts).</summary>
        public IReadOnlyList<Marker> XMarkers { get; init; } = [];

        /// <summary>Logarithmic x (rates that grow geometrically); points with x ≤ 0 are left out.</summary>
        public bool LogX { get; init; }

        /// <summary>Logarithmic y (latencies over orders of magnitude); points with y ≤ 0 are left out.</summary>
        public bool LogY { get; init; }

        /// <summary>Draw a dot at each point (few points: a sweep); off for timelines.</summary>
        public bool Dots { get; init; }
    }

    /// <summary>
    /// A line chart. <paramref name="id"/> prefixes the ids inside the SVG, so that several charts
    /// inlined in one page do not share ids.
    /// </summary>
    public static string LineChart(string id, string title, string xLabel, string yLabel, IReadOnlyList<Line> lines, LineOptions? options = null)
    {
        options ??= new LineOptions();
        var model = NewModel(title);
        model.Axes.Add(Axis(options.LogX, AxisPosition.Bottom, xLabel));
        model.Axes.Add(Axis(options.LogY, AxisPosition.Left, yLabel));
        foreach (var line in lines)
        {
            var series = new LineSeries
            {
                Title = line.Name,
                Color = OxyColor.Parse(line.Color),
                StrokeThickness = line.Dashed ? 1.5 : 2,
                LineStyle = line.Dashed ? LineStyle.Dash : LineStyle.Solid,
                MarkerType = options.Dots && !line.Dashed ? MarkerType.Circle : MarkerType.None,
                MarkerSize = 3,
                MarkerFill = OxyColor.Parse(line.Color),
            };
            foreach (var (x, y) in line.Points)
            {
                var drawable = double.IsFinite(x) && double.IsFinite(y) && (!options.LogX || x > 0) && (!options.LogY || y > 0);
                series.Points.Add(drawable ? new DataPoint(x, y) : DataPoint.Undefined);
            }

            model.Series.Add(series);
        }

        foreach (var limit in options.Limits)
        {
            model.Annotations.Add(Guide(LineAnnotationType.Horizontal, limit));
        }

        foreach (var marker in options.XMarkers)
        {
            model.Annotations.Add(Guide(LineAnnotationType.Vertical, marker));
        }

        return Export(model, id, options.Width, options.Height);
    }

    /// <summary>
    /// A grouped bar chart, one group per category (top to bottom), one bar per series in each,
    /// horizontal so long category names stay readable. The height grows with the bars.
    /// </summary>
    public static string BarChart(string id, string title, string valueLabel, IReadOnlyList<string> categories, IReadOnlyList<Bars> series, int width = 900)
    {
        var model = NewModel(title);
        var axis = new CategoryAxis { Position = AxisPosition.Left, StartPosition = 1, EndPosition = 0, GapWidth = 0.5 };
        axis.Labels.AddRange(categories);
        model.Axes.Add(axis);
        model.Axes.Add(new LinearAxis
        {
            Position = AxisPosition.Bottom, Title = valueLabel, MinimumPadding = 0, AbsoluteMinimum = 0, MaximumPadding = 0.05,
            MajorGridlineStyle = LineStyle.Solid, MajorGridlineColor = Grid, AxisTitleDistance = 6,
        });
        foreach (var bars in series)
        {
            var bar = new BarSeries { Title = bars.Name, FillColor = OxyColor.Parse(bars.Color), StrokeThickness = 0 };
            for (var i = 0; i < bars.Values.Count && i < categories.Count; i++)
            {
                if (double.IsFinite(bars.Values[i]))
                {
                    bar.Items.Add(new BarItem(bars.Values[i]) { CategoryIndex = i }); // the index, or a missing bar shifts the rest
                }
            }

            model.Series.Add(bar);
        }

        var height = 110 + (categories.Count * Math.Max(1, series.Count) * 12) + (categories.Count * 10);
        return Export(model, id, width, Math.Max(220, height));
    }

    private static readonly OxyColor Grid = OxyColor.FromRgb(0xE6, 0xE6, 0xE6);

    private static PlotModel NewModel(string title)
    {
        var model = new PlotModel
        {
            Title = title,
            TitleFontSize = 15,
            DefaultFont = Font,
            DefaultFontSize = 12,
            Background = OxyColors.White,
            Padding = new OxyThickness(24, 8, 24, 8),
        };
        model.Legends.Add(new Legend
        {
            LegendPlacement = LegendPlacement.Outside,
            LegendPosition = LegendPosition.TopCenter,
            LegendOrientation = LegendOrientation.Horizontal,
            LegendItemSpacing = 16,
        });
        return model;
    }

    private static Axis Axis(bool log, AxisPosition position, string title)
    {
        Axis axis = log ? new LogarithmicAxis() : new LinearAxis { Minimum = 0, MinimumPadding = 0 }; // linear axes start at 0: no exaggerated differences
        axis.Position = position;
        axis.Title = title;
        axis.MaximumPadding = 0.05;
        axis.MajorGridlineStyle = LineStyle.Solid;
        axis.MajorGridlineColor = Grid;
        axis.AxisTitleDistance = 6;
        return axis;
    }

    private static LineAnnotation Guide(LineAnnotationType type, Marker marker) => new()
    {
        Type = type,
        Y = type == LineAnnotationType.Horizontal ? marker.At : 0,
        X = type == LineAnnotationType.Vertical ? marker.At : 0,
        Text = marker.Label,
        Color = OxyColors.Gray,
        TextColor = OxyColors.DimGray,
        LineStyle = LineStyle.Dash,
        StrokeThickness = 1.5,
    };

    /// <summary>
    /// OxyPlot's SVG made fit to inline: no XML declaration, no unused xlink namespace (so the page
    /// names no URL but the SVG namespace), the ids prefixed with <paramref name="id"/> (OxyPlot numbers
    /// its clip paths from 1 in every chart), the viewer's fonts with fallbacks, and a viewBox so CSS
    /// can scale it.
    /// </summary>
    private static string Export(PlotModel model, string id, int width, int height)
    {
        var text = SvgExporter.ExportToString(model, width, height, isDocument: false, new PixelTextMeasurer(width, height));
        var root = XElement.Parse(text);
        var xlink = root.Attributes().Where(a => a.IsNamespaceDeclaration && a.Value == "http://www.w3.org/1999/xlink").ToList();
        if (xlink.Count > 0 && !root.DescendantsAndSelf().Attributes().Any(a => !a.IsNamespaceDeclaration && a.Name.NamespaceName == xlink[0].Value))
        {
            xlink.ForEach(a => a.Remove());
        }

        var prefix = Slug(id) + "-";
        foreach (var element in root.DescendantsAndSelf())
        {
            foreach (var attribute in element.Attributes().Where(a => !a.IsNamespaceDeclaration))
            {
                if (attribute.Name == "id")
                {
                    attribute.Value = prefix + attribute.Value;
                }
                else if (attribute.Value.Contains("url(#", StringComparison.Ordinal))
                {
                    attribute.Value = attribute.Value.Replace("url(#", "url(#" + prefix, StringComparison.Ordinal);
                }
                else if (attribute.Name == "font-family")
                {
                    attribute.Value = ViewerFonts;
                }
            }
        }

        root.SetAttributeValue("viewBox", string.Create(CultureInfo.InvariantCulture, $"0 0 {width} {height}"));
        root.SetAttributeValue("role", "img");
        return root.ToString(SaveOptions.DisableFormatting);
    }

    /// <summary>
    /// The PDF context's text metrics in SVG's unit: it measures in points (1/72 in), the SVG draws
    /// in CSS pixels (1/96 in), so unscaled every label came out a quarter too narrow and the
    /// legend's entries and the axis titles overlapped their neighbours.
    /// </summary>
    private sealed class PixelTextMeasurer(int width, int height) : PdfRenderContext(width, height, OxyColors.White)
    {
        public override OxySize MeasureText(string text, string fontFamily, double fontSize, double fontWeight) =>
            base.MeasureText(text, fontFamily, fontSize * 96 / 72, fontWeight);
    }

    /// <summary>Letters, digits and '-' only: for ids and file names made from engine and load names.</summary>
    internal static string Slug(string text)
    {
        var chars = new System.Text.StringBuilder(text.Length);
        foreach (var c in text.ToLowerInvariant())
        {
            if (char.IsAsciiLetterOrDigit(c))
            {
                chars.Append(c);
            }
            else if (c != ',' && chars.Length > 0 && chars[^1] != '-')
            {
                chars.Append('-'); // thousands separators vanish: "2,000/s" is "2000-s"
            }
        }

        var slug = chars.ToString().TrimEnd('-');
        return slug.Length == 0 ? "x" : slug;
    }
}
