using Voron.LoadTests.Experiments.Documents;

namespace Voron.LoadTests.Tests;

public sealed class DocumentsExperimentTests : IDisposable
{
    private static readonly string[] Verdicts = ["yes", "no"];
    private static readonly string[] FloorWorkloads = ["bulk", "load", "insert"];
    private readonly TempDirectory _directory = new();

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
        string[] floorless = ["query-eq", "query-range", "update"];
        foreach (var engine in DocumentsExperiment.Engines)
        {
            foreach (var (workload, callers) in expected)
            {
                var matching = rows.Where(r => r.GetProperty("engine").GetString() == engine && r.GetProperty("workload").GetString() == workload && r.GetProperty("callers").GetInt32() == callers).ToList();
                if (engine == "voron-kv" && floorless.Contains(workload))
                {
                    Assert.Empty(matching); // the engine floor has no queries or updates
                    continue;
                }

                var row = Assert.Single(matching);
                Assert.True(row.GetProperty("opsPerSec").GetDouble() > 0, $"{engine} {workload} {callers}");
                Assert.True(row.GetProperty("p99Ms").GetDouble() > 0, $"{engine} {workload} {callers}");
                Assert.True(row.GetProperty("cpuUsPerOp").GetDouble() > 0, $"{engine} {workload} {callers}");
                Assert.True(row.GetProperty("allocBytesPerOp").GetDouble() > 0, $"{engine} {workload} {callers}");
                var vsFloor = row.GetProperty("vsFloor");
                if (engine == "voron" && !floorless.Contains(workload))
                {
                    Assert.True(vsFloor.GetDouble() > 0, $"{engine} {workload} {callers}");
                }
                else
                {
                    Assert.Equal(JsonValueKind.Null, vsFloor.ValueKind);
                }
            }
        }

        var bulk = rows.Where(r => r.GetProperty("workload").GetString() == "bulk").ToList();
        Assert.All(bulk, r => Assert.Equal(1500, r.GetProperty("ops").GetInt64()));
        Assert.True(json.RootElement.GetProperty("fdatasyncMedianMs").GetDouble() > 0);
        Assert.Contains("synchronous=FULL", json.RootElement.GetProperty("durability.sqlite").GetString(), StringComparison.Ordinal);
        Assert.Contains("Durable", json.RootElement.GetProperty("durability.voron-kv").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Voron_rows_with_a_target_say_whether_it_was_met_and_the_bulk_insert_reports_each_trees_leaf_fill()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("targets"));

        var report = await new DocumentsExperiment(documents: 1000, duration: TimeSpan.FromMilliseconds(30), warmUp: false,
            engines: ["voron", "voron-kv", "sqlite"], workloads: ["bulk", "insert", "query-eq"], insertCallers: [1, 64]).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        foreach (var (workload, callers, targets) in new[] { ("bulk", 1, 3), ("insert", 64, 2), ("insert", 1, 1), ("query-eq", 1, 1) })
        {
            var row = Assert.Single(rows, r => r.GetProperty("engine").GetString() == "voron" && r.GetProperty("workload").GetString() == workload && r.GetProperty("callers").GetInt32() == callers);
            var verdicts = row.GetProperty("met").GetString()!.Split(", ");
            Assert.Equal(targets, verdicts.Length);
            Assert.All(verdicts, v => Assert.Contains(v, Verdicts)); // every engine ran: no n/a
            Assert.Equal(targets, row.GetProperty("target").GetString()!.Split(", ").Length);
        }

        Assert.All(rows.Where(r => r.GetProperty("engine").GetString() != "voron"), r => Assert.Equal(JsonValueKind.Null, r.GetProperty("met").ValueKind));
        Assert.Equal(7, json.RootElement.GetProperty("targetsMet").GetInt32() + json.RootElement.GetProperty("targetsMissed").GetInt32());

        var facts = json.RootElement.EnumerateObject().Where(p => p.Name.StartsWith("leafFill.", StringComparison.Ordinal)).ToDictionary(p => p.Name, p => p.Value.GetString()!);
        Assert.Contains("leafFill.voron.@docs", facts.Keys);
        Assert.Contains(facts.Keys, k => k.StartsWith("leafFill.voron.@docs.col/", StringComparison.Ordinal));
        Assert.Equal(2, facts.Keys.Count(k => k.StartsWith("leafFill.voron.@docs.idx/", StringComparison.Ordinal)));
        Assert.Contains("leafFill.voron-kv.profiles", facts.Keys);
        Assert.Contains("entries 1,000,", facts["leafFill.voron.@docs"], StringComparison.Ordinal);
        Assert.Contains("entries 1,000,", facts["leafFill.voron-kv.profiles"], StringComparison.Ordinal);
        Assert.All(facts.Values, f => Assert.Matches(@"leaf fill 0\.\d{3}$|leaf fill 1\.000$", f));
    }

    [Fact]
    public async Task The_change_feed_workloads_report_voron_rows_with_their_variants_and_targets()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("feed"));

        var report = await new DocumentsExperiment(documents: 1000, duration: TimeSpan.FromMilliseconds(50), warmUp: false,
            engines: ["voron", "sqlite"], workloads: ["feed-read", "feed-latency", "feed-cost"]).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        Assert.All(rows, r => Assert.Equal("voron", r.GetProperty("engine").GetString())); // SQLite has no change feed
        var read = rows.Where(r => r.GetProperty("workload").GetString() == "feed-read").ToList();
        Assert.Equal(["includeJson false", "includeJson true"], read.Select(r => r.GetProperty("variant").GetString()));
        Assert.All(read, r => Assert.Equal(1000, r.GetProperty("ops").GetInt64())); // the bulk insert's history, every change once
        Assert.All(read, r => Assert.True(r.GetProperty("opsPerSec").GetDouble() > 0));
        Assert.Contains(read[0].GetProperty("met").GetString(), Verdicts);
        Assert.Equal(JsonValueKind.Null, read[1].GetProperty("met").ValueKind);

        var latency = Assert.Single(rows, r => r.GetProperty("workload").GetString() == "feed-latency");
        Assert.True(latency.GetProperty("ops").GetInt64() >= 10);
        Assert.True(latency.GetProperty("p99Ms").GetDouble() >= latency.GetProperty("p50Ms").GetDouble());
        Assert.Contains(latency.GetProperty("met").GetString(), Verdicts);

        var cost = rows.Where(r => r.GetProperty("workload").GetString() == "feed-cost").ToList();
        Assert.Equal(["feed on", "feed off"], cost.Select(r => r.GetProperty("variant").GetString()));
        Assert.All(cost, r => Assert.Equal(DocumentsExperiment.FeedCostCallers, r.GetProperty("callers").GetInt32()));
        Assert.All(cost, r => Assert.True(r.GetProperty("ops").GetInt64() > 0));
        Assert.Equal(cost[0].GetProperty("opsPerSec").GetDouble() / cost[1].GetProperty("opsPerSec").GetDouble(), cost[0].GetProperty("vsFeedOff").GetDouble(), 0.01); // the report rounds
        Assert.Contains(cost[0].GetProperty("met").GetString(), Verdicts);
        Assert.Equal(JsonValueKind.Null, cost[1].GetProperty("vsFeedOff").ValueKind);
        Assert.Equal(3, json.RootElement.GetProperty("targetsMet").GetInt32() + json.RootElement.GetProperty("targetsMissed").GetInt32());
    }

    [Fact]
    public void The_change_feed_workloads_are_in_every_workload_and_chosen_by_name()
    {
        Assert.Equal(DocumentWorkloads.Feed, DocumentWorkloads.All.Where(DocumentWorkloads.Feed.Contains));
        Assert.Empty(CommandLine.Parse(["documents", "--workloads", "feed-read,feed-latency,feed-cost"]).Errors);
    }

    [Fact]
    public void The_engine_floor_has_insert_load_and_bulk_only_and_is_in_the_engine_order()
    {
        Assert.Contains("voron-kv", DocumentEngineNames.All);
        Assert.Contains("voron-kv", DocumentsExperiment.Engines);
        using var engine = new Stores.Voron.VoronKvDocumentEngine(_directory.Combine("floor"));
        Assert.Equal(FloorWorkloads, DocumentWorkloads.All.Where(((Capabilities.Documents.IDocumentEngine)engine).Runs));
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

    /// <summary>
    /// Regression: `documents` without --engines, --workloads or --callers got empty lists from the
    /// command line and ran no engine at all (`documents --quick` saved a report without rows).
    /// </summary>
    [Fact]
    public void Documents_without_engines_workloads_or_callers_runs_them_all()
    {
        var definition = ExperimentCatalog.All.Single(d => d.Name == "documents");

        var all = SuiteParts.Part<DocumentsExperiment>(definition.Create(CommandLine.Parse(["documents", "--quick"])));
        var given = SuiteParts.Part<DocumentsExperiment>(definition.Create(CommandLine.Parse(["documents", "--engines", "voron-kv", "--workloads", "load", "--callers", "8"])));

        Assert.Equal(DocumentEngineNames.All, all.EngineNames);
        Assert.Equal(DocumentWorkloads.All, all.Workloads);
        Assert.Equal(DocumentsExperiment.InsertCallers, all.InsertCallerCounts);
        Assert.Equal(["voron-kv"], given.EngineNames);
        Assert.Equal(["load"], given.Workloads);
        Assert.Equal([8], given.InsertCallerCounts);
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
