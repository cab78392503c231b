using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// The sections experiment's chart: seeks per flush over the run, one line per policy, one panel
/// per workload, each point the mean of <see cref="Window"/> consecutive flushes (the raw series
/// overlap too much to read), with a marker where the churn phase starts.
/// </summary>
internal static class SectionsChart
{
    public const string FileName = "sections-seeks.png";
    public const int Window = 25;
    private const int PanelHeight = 460;

    /// <summary>Writes <see cref="FileName"/> into <paramref name="directory"/> and returns its path.</summary>
    public static string Write(string directory, IReadOnlyList<SectionsWorkload.Result> results)
    {
        var workloads = results.Select(r => r.Workload).Distinct().ToList();
        var chart = new PngChart(1200, PanelHeight * Math.Max(1, workloads.Count));
        for (var w = 0; w < workloads.Count; w++)
        {
            var runs = results.Where(r => r.Workload == workloads[w]).ToList();
            var series = runs.Select(r => new PngChart.Series(
                    r.Policy == AllocationPolicy.FirstFit ? "first-fit" : "sections",
                    r.Policy == AllocationPolicy.FirstFit ? new PngChart.Rgb(214, 39, 40) : new PngChart.Rgb(31, 119, 180),
                    MovingMean(r.Flushes.ConvertAll(f => (double)f.Statistics.Seeks), Window)))
                .ToList();
            var churnStarts = runs[0].Flushes.FindIndex(f => f.Phase == SectionsWorkload.ChurnPhase);
            var markers = churnStarts > 0 ? new[] { new PngChart.Marker(churnStarts, "churn") } : [];
            chart.Plot(0, w * PanelHeight, chart.Width, PanelHeight, $"Seeks per flush, {workloads[w]} (mean of {Window} flushes)",
                "flush number", "seeks", series, markers);
        }

        var path = Path.Combine(directory, FileName);
        chart.Save(path);
        return path;
    }

    /// <summary>Each point the mean of itself and the <paramref name="window"/> - 1 points before it.</summary>
    internal static List<double> MovingMean(IReadOnlyList<double> values, int window)
    {
        var result = new List<double>(values.Count);
        double sum = 0;
        for (var i = 0; i < values.Count; i++)
        {
            sum += values[i];
            if (i >= window)
            {
                sum -= values[i - window];
            }

            result.Add(sum / Math.Min(i + 1, window));
        }

        return result;
    }
}
