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

    [Theory]
    [InlineData(null, null)]
    [InlineData(" ", null)]
    [InlineData("8192", new[] { 8192 })]
    [InlineData("64, 256,1", new[] { 64, 256, 1 })]
    public void Caller_counts_from_the_environment_variable(string? text, int[]? expected) =>
        Assert.Equal(expected, MergeExperiment.ParseCallerCounts(text));

    [Theory]
    [InlineData("0")]
    [InlineData("-4")]
    [InlineData("64,,256")]
    [InlineData("many")]
    [InlineData("20000")]
    public void Bad_caller_counts_are_refused_with_the_variable_named(string text)
    {
        var error = Assert.Throws<ArgumentException>(() => MergeExperiment.ParseCallerCounts(text));
        Assert.Contains("VORON_MERGE_CALLERS", error.Message, StringComparison.Ordinal);
        Assert.Contains(text, error.Message, StringComparison.Ordinal);
    }

    public void Dispose() => _directory.Dispose();
}
