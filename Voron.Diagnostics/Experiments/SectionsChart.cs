using Voron.LoadTests.Reporting;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// The sections experiment's chart: seeks per flush over the run, one line per policy, one panel
/// per workload, each point the mean of <see cref="Window"/> consecutive flushes (the raw series
/// overlap too much to read), with a marker where the churn phase starts.
/// </summary>
internal static class SectionsChart
{
    /// <summary>The chart's file name without extension: <c>sections-seeks.svg</c>.</summary>
    public const string Name = "sections-seeks";
    public const int Window = 25;
    private const int PanelHeight = 460;

    /// <summary>Writes the chart into <paramref name="directory"/> and returns its path.</summary>
    public static string Write(string directory, IReadOnlyList<SectionsWorkload.Result> results)
    {
        var panels = results.Select(r => r.Workload).Distinct().Select(workload =>
        {
            var runs = results.Where(r => r.Workload == workload).ToList();
            var series = runs.Select(r => new LineChart.Series(
                    r.Policy == AllocationPolicy.FirstFit ? "first-fit" : "sections",
                    r.Policy == AllocationPolicy.FirstFit ? "#D62728" : "#1F77B4",
                    MovingMean(r.Flushes.ConvertAll(f => (double)f.Statistics.Seeks), Window)))
                .ToList();
            var churnStarts = runs[0].Flushes.FindIndex(f => f.Phase == SectionsWorkload.ChurnPhase);
            LineChart.Marker[] markers = churnStarts > 0 ? [new LineChart.Marker(churnStarts, "churn")] : [];
            return new LineChart.Panel($"Seeks per flush, {workload} (mean of {Window} flushes)", "flush number", "seeks", series, markers);
        }).ToList();
        return LineChart.Save(directory, Name, 1200, PanelHeight, panels);
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
