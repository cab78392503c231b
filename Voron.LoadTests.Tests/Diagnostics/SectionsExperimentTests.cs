using System.Xml.Linq;
using Voron.Diagnostics.Experiments;

namespace Voron.LoadTests.Tests.Diagnostics;

public sealed class SectionsExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Run_reports_both_policies_per_workload_with_the_required_fields_and_writes_the_chart()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));
        var charts = _directory.Combine("reports");

        var report = await new SectionsExperiment(scale: 0.02, chartDirectory: charts).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        foreach (var workload in new[] { SectionsExperiment.RandomSmall, SectionsExperiment.RandomOverflow })
        {
            foreach (var policy in new[] { "first-fit", "sections" })
            {
                var row = Assert.Single(rows, r => r.GetProperty("workload").GetString() == workload && r.GetProperty("policy").GetString() == policy);
                Assert.True(row.GetProperty("flushes").GetInt32() > 0, $"{workload} {policy}");
                Assert.True(row.GetProperty("medianSeeksPerFlush").GetDouble() >= 1, $"{workload} {policy}");
                Assert.True(row.GetProperty("medianPagesPerFlush").GetDouble() >= row.GetProperty("medianSeeksPerFlush").GetDouble(), $"{workload} {policy}");
            }
        }

        Assert.All(rows, r => Assert.True(r.TryGetProperty("policy", out _) && r.TryGetProperty("medianSeeksPerFlush", out _) && r.TryGetProperty("medianPagesPerFlush", out _)));
        foreach (var workload in new[] { SectionsExperiment.SequentialInsert, SectionsExperiment.RandomInsert })
        {
            var row = Assert.Single(rows, r => r.GetProperty("workload").GetString() == workload);
            Assert.True(row.GetProperty("journalMiB").GetDouble() > 0 && row.GetProperty("dataFileMiB").GetDouble() > 0, workload);
        }

        var root = json.RootElement;
        Assert.True(root.GetProperty("seeksReduction").GetDouble() > 0);
        Assert.True(root.GetProperty("randomInsertWrittenMiB").GetDouble() > root.GetProperty("sequentialInsertWrittenMiB").GetDouble());
        Assert.Equal("svg", XDocument.Load(Path.Combine(charts, SectionsChart.Name + ".svg")).Root!.Name.LocalName);
        Assert.Contains("random-100b", output.ToString());
    }

    [Fact]
    public void MovingMean_averages_each_point_with_the_ones_before_it()
    {
        Assert.Equal([2, 3, 5, 7], SectionsChart.MovingMean([2, 4, 6, 8], 2));
    }

    public void Dispose() => _directory.Dispose();
}
