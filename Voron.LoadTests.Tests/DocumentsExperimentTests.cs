using System.Text.Json;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Experiments.Documents;

namespace Voron.LoadTests.Tests;

public sealed class DocumentsExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Documents_is_registered_in_the_catalog() => Assert.IsType<DocumentsExperiment>(ExperimentCatalog.Find("documents"));

    [Fact]
    public async Task Run_reports_every_engine_on_every_workload_with_the_required_fields()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new DocumentsExperiment(documents: 1500, duration: TimeSpan.FromMilliseconds(30), warmUp: false).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        var expected = new List<(string Workload, int Callers)> { ("bulk", 1), ("query-eq", 1), ("query-range", 1), ("update", DocumentsExperiment.UpdateCallers) };
        expected.AddRange(DocumentsExperiment.LoadThreads.Select(t => ("load", t)));
        expected.AddRange(DocumentsExperiment.InsertCallers.Select(c => ("insert", c)));
        foreach (var engine in DocumentsExperiment.Engines)
        {
            foreach (var (workload, callers) in expected)
            {
                var row = Assert.Single(rows, r => r.GetProperty("engine").GetString() == engine && r.GetProperty("workload").GetString() == workload && r.GetProperty("callers").GetInt32() == callers);
                Assert.True(row.GetProperty("opsPerSec").GetDouble() > 0, $"{engine} {workload} {callers}");
                Assert.True(row.GetProperty("p99Ms").GetDouble() > 0, $"{engine} {workload} {callers}");
            }
        }

        var bulk = rows.Where(r => r.GetProperty("workload").GetString() == "bulk").ToList();
        Assert.All(bulk, r => Assert.Equal(1500, r.GetProperty("ops").GetInt64()));
        Assert.True(json.RootElement.GetProperty("fdatasyncMedianMs").GetDouble() > 0);
        Assert.Contains("synchronous=FULL", json.RootElement.GetProperty("durability.sqlite").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Chosen_engines_workloads_and_callers_are_the_only_rows()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("chosen"));

        var report = await new DocumentsExperiment(documents: 1000, duration: TimeSpan.FromMilliseconds(30), warmUp: false,
            engines: ["voron"], workloads: ["insert"], insertCallers: [4]).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var row = Assert.Single(json.RootElement.GetProperty("rows").EnumerateArray());
        Assert.Equal(("voron", "insert", 4), (row.GetProperty("engine").GetString(), row.GetProperty("workload").GetString(), row.GetProperty("callers").GetInt32()));
    }

    [Theory]
    [InlineData("--engines", "voron,postgres")]
    [InlineData("--workloads", "insert,delete")]
    [InlineData("--callers", "0")]
    public void Unknown_engines_workloads_and_caller_counts_are_usage_errors(string option, string value) =>
        Assert.NotEmpty(CommandLine.Parse(["documents", option, value]).Errors);

    [Fact]
    public void Documents_are_about_one_KiB_of_varied_json_and_the_same_for_every_call()
    {
        var sizes = Enumerable.Range(0, 500).Select(i => JsonSerializer.SerializeToUtf8Bytes(ProfileDataSet.Create(i), ProfileJson.Default.Profile).Length).ToList();
        Assert.InRange(sizes.Average(), 700, 1300);
        Assert.True(sizes.Distinct().Count() > 100, "documents vary in size");
        Assert.Equal(JsonSerializer.Serialize(ProfileDataSet.Create(42), ProfileJson.Default.Profile), JsonSerializer.Serialize(ProfileDataSet.Create(42), ProfileJson.Default.Profile));
        Assert.NotEqual(ProfileDataSet.Create(1).Name + ProfileDataSet.Create(1).Bio, ProfileDataSet.Create(2).Name + ProfileDataSet.Create(2).Bio);
    }

    public void Dispose() => _directory.Dispose();
}
