using System.Text.Json;
using Voron.LoadTests.Experiments;

namespace Voron.Tests.LoadTests;

public sealed class MergeExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Merge_is_registered_in_the_catalog() => Assert.IsType<MergeExperiment>(ExperimentCatalog.Find("merge"));

    [Fact]
    public async Task Run_reports_every_mode_at_every_caller_count_with_the_required_fields()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new MergeExperiment(TimeSpan.FromMilliseconds(40)).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        foreach (var callers in MergeExperiment.CallerCounts)
        {
            foreach (var mode in new[] { MergeExperiment.Unmerged, MergeExperiment.Merged, MergeExperiment.MergedAsync, "sqlite" })
            {
                var row = Assert.Single(rows, r => r.GetProperty("mode").GetString() == mode && r.GetProperty("callers").GetInt32() == callers);
                Assert.True(row.GetProperty("writesPerSec").GetDouble() > 0, $"{mode} at {callers}");
                Assert.True(row.GetProperty("p99Ms").GetDouble() > 0, $"{mode} at {callers}");
                Assert.True(row.GetProperty("opsPerFlush").GetDouble() >= 1, $"{mode} at {callers}");
                var journal = row.GetProperty("journalMedianMs");
                if (mode == "sqlite")
                {
                    Assert.Equal(JsonValueKind.Null, journal.ValueKind);
                }
                else
                {
                    Assert.True(journal.GetDouble() > 0, $"{mode} at {callers}: the journal record time comes from the store's own metric");
                }
            }
        }

        var unmerged = rows.Where(r => r.GetProperty("mode").GetString() == MergeExperiment.Unmerged);
        Assert.All(unmerged, r => Assert.Equal(1.0, r.GetProperty("opsPerFlush").GetDouble()));
        Assert.True(json.RootElement.GetProperty("fdatasyncMedianMs").GetDouble() > 0);
    }

    public void Dispose() => _directory.Dispose();
}
