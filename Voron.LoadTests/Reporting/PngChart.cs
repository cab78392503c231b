using System.Globalization;

namespace Voron.LoadTests.Reporting;

/// <summary>
/// A line chart drawn into an RGB pixel buffer and saved as PNG (<see cref="PngEncoder"/>): a
/// title, axes with tick labels, one polyline per series (y against the sample's index), optional
/// phase markers and a legend of coloured boxes with names, in one or more panels, all text in <see cref="PixelFont"/> (scaled 2x).
/// No charting package restores here, so this is deliberately small.
/// </summary>
internal sealed class PngChart
{
    private const int TextScale = 2;
    private const int Left = 90, Right = 30, Top = 60, Bottom = 70;

    private readonly byte[] _rgb;

    public PngChart(int width, int height)
    {
        Width = width;
        Height = height;
        _rgb = new byte[width * height * 3];
        Array.Fill(_rgb, (byte)255);
    }

    /// <summary>One line of the chart.</summary>
    internal sealed record Series(string Name, Rgb Color, IReadOnlyList<double> Values);

    internal readonly record struct Rgb(byte R, byte G, byte B);

    /// <summary>A labelled vertical line at a sample index (a phase change).</summary>
    internal sealed record Marker(double Index, string Label);

    public int Width { get; }

    public int Height { get; }

    public static Rgb Black { get; } = new(0, 0, 0);

    public static Rgb Grey { get; } = new(160, 160, 160);

    public static Rgb GridGrey { get; } = new(220, 220, 220);

    /// <summary>Draws a chart over the whole image; the x axis runs over sample indexes 0..the longest series' length.</summary>
    public void Plot(string title, string xLabel, string yLabel, IReadOnlyList<Series> series, IReadOnlyList<Marker>? markers = null) =>
        Plot(0, 0, Width, Height, title, xLabel, yLabel, series, markers);

    /// <summary>Draws a chart into the panel at (<paramref name="x0"/>, <paramref name="y0"/>) of the given size.</summary>
    public void Plot(int x0, int y0, int width, int height, string title, string xLabel, string yLabel, IReadOnlyList<Series> series, IReadOnlyList<Marker>? markers = null)
    {
        var left = x0 + Left;
        var top = y0 + Top;
        var plotWidth = width - Left - Right;
        var plotHeight = height - Top - Bottom;
        var xMax = Math.Max(1, series.Max(s => s.Values.Count));
        var yMax = NiceCeiling(series.SelectMany(s => s.Values).DefaultIfEmpty(1).Max());
        int X(double index) => left + (int)Math.Round(index / xMax * (plotWidth - 1));
        int Y(double value) => top + plotHeight - 1 - (int)Math.Round(value / yMax * (plotHeight - 1));

        DrawText(title, x0 + (width - PixelFont.MeasureWidth(title) * TextScale) / 2, y0 + 16, Black);
        for (var tick = 0; tick <= 5; tick++)
        {
            var value = yMax * tick / 5;
            var y = Y(value);
            Line(left, y, left + plotWidth - 1, y, GridGrey);
            var label = value.ToString("N0", CultureInfo.InvariantCulture);
            DrawText(label, left - 8 - PixelFont.MeasureWidth(label) * TextScale, y - PixelFont.Height, Black);

            var index = xMax * tick / 5.0;
            var x = X(index);
            Line(x, top + plotHeight, x, top + plotHeight + 5, Black);
            var xText = Math.Round(index).ToString("N0", CultureInfo.InvariantCulture);
            DrawText(xText, x - PixelFont.MeasureWidth(xText), top + plotHeight + 10, Black);
        }

        foreach (var marker in markers ?? [])
        {
            var x = X(marker.Index);
            Line(x, top, x, top + plotHeight, Grey);
            DrawText(marker.Label, x + 6, top + plotHeight - 24, Grey);
        }

        Line(left, top, left, top + plotHeight, Black);
        Line(left, top + plotHeight, left + plotWidth, top + plotHeight, Black);
        DrawText(xLabel, left + (plotWidth - PixelFont.MeasureWidth(xLabel) * TextScale) / 2, y0 + height - 28, Black);
        DrawText(yLabel, x0 + 8, top - 26, Black);

        foreach (var line in series)
        {
            for (var i = 1; i < line.Values.Count; i++)
            {
                ThickLine(X(i - 1), Y(line.Values[i - 1]), X(i), Y(line.Values[i]), line.Color);
            }
        }

        var legendX = left + plotWidth - 10;
        for (var i = series.Count - 1; i >= 0; i--)
        {
            var name = series[i].Name;
            legendX -= PixelFont.MeasureWidth(name) * TextScale + 34;
            FillRect(legendX, top + 8, 18, 14, series[i].Color);
            DrawText(name, legendX + 24, top + 8, Black);
        }
    }

    public byte[] ToPng() => PngEncoder.Encode(Width, Height, _rgb);

    public void Save(string path)
    {
        var directory = Path.GetDirectoryName(Path.GetFullPath(path));
        if (directory != null)
        {
            Directory.CreateDirectory(directory);
        }

        File.WriteAllBytes(path, ToPng());
    }

    /// <summary>The smallest of 1, 2, 2.5, 5 x 10^n at or above <paramref name="value"/>.</summary>
    internal static double NiceCeiling(double value)
    {
        if (value <= 0 || double.IsNaN(value))
        {
            return 1;
        }

        var magnitude = Math.Pow(10, Math.Floor(Math.Log10(value)));
        foreach (var step in new[] { 1, 2, 2.5, 5, 10 })
        {
            if (step * magnitude >= value)
            {
                return step * magnitude;
            }
        }

        return 10 * magnitude;
    }

    public void SetPixel(int x, int y, Rgb color)
    {
        if (x < 0 || y < 0 || x >= Width || y >= Height)
        {
            return;
        }

        var at = (y * Width + x) * 3;
        _rgb[at] = color.R;
        _rgb[at + 1] = color.G;
        _rgb[at + 2] = color.B;
    }

    public Rgb GetPixel(int x, int y)
    {
        var at = (y * Width + x) * 3;
        return new Rgb(_rgb[at], _rgb[at + 1], _rgb[at + 2]);
    }

    /// <summary>Bresenham's line, one pixel wide.</summary>
    public void Line(int x0, int y0, int x1, int y1, Rgb color)
    {
        int dx = Math.Abs(x1 - x0), dy = -Math.Abs(y1 - y0);
        int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
        var error = dx + dy;
        while (true)
        {
            SetPixel(x0, y0, color);
            if (x0 == x1 && y0 == y1)
            {
                return;
            }

            var doubled = 2 * error;
            if (doubled >= dy)
            {
                error += dy;
                x0 += sx;
            }

            if (doubled <= dx)
            {
                error += dx;
                y0 += sy;
            }
        }
    }

    private void ThickLine(int x0, int y0, int x1, int y1, Rgb color)
    {
        Line(x0, y0, x1, y1, color);
        Line(x0, y0 + 1, x1, y1 + 1, color);
    }

    private void FillRect(int x, int y, int width, int height, Rgb color)
    {
        for (var row = y; row < y + height; row++)
        {
            for (var column = x; column < x + width; column++)
            {
                SetPixel(column, row, color);
            }
        }
    }

    private void DrawText(string text, int x, int y, Rgb color)
    {
        for (var i = 0; i < text.Length; i++)
        {
            for (var row = 0; row < PixelFont.Height; row++)
            {
                for (var column = 0; column < PixelFont.Width; column++)
                {
                    if (PixelFont.Ink(text[i], column, row))
                    {
                        FillRect(x + (i * PixelFont.Advance + column) * TextScale, y + row * TextScale, TextScale, TextScale, color);
                    }
                }
            }
        }
    }
}
