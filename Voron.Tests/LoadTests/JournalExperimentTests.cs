using System.Text.Json;
using Voron.LoadTests.Experiments;

namespace Voron.Tests.LoadTests;

public sealed class JournalExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Journal_is_registered_in_the_catalog() => Assert.IsType<JournalExperiment>(ExperimentCatalog.Find("journal"));

    [Fact]
    public async Task Run_reports_both_workloads_in_all_four_modes_and_diffs_shrink_updates()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new JournalExperiment(documents: 400).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(8, rows.Count);
        foreach (var workload in new[] { "insert", "update" })
        {
            foreach (var (mode, _, _) in JournalExperiment.Modes)
            {
                var row = Assert.Single(rows, r => r.GetProperty("workload").GetString() == workload && r.GetProperty("mode").GetString() == mode);
                Assert.True(row.GetProperty("journalBytesPerOp").GetDouble() > 0);
                Assert.True(row.GetProperty("writesPerSec").GetDouble() > 0);
            }
        }

        double Bytes(string workload, string mode) => rows.Single(r => r.GetProperty("workload").GetString() == workload && r.GetProperty("mode").GetString() == mode)
            .GetProperty("journalBytesPerOp").GetDouble();
        Assert.True(Bytes("update", "diffs") < Bytes("update", "full-pages"), "diffs journal fewer bytes than full pages for updates");
        Assert.True(Bytes("insert", "diffs+lz4") < Bytes("insert", "full-pages"), "diffs+LZ4 journal fewer bytes than full pages for inserts");
    }

    public void Dispose() => _directory.Dispose();
}
