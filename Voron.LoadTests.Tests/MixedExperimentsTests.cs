using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Tests;

/// <summary>Small runs of the ycsb, churn and recovery experiments: every row there, with its fields. No speed is asserted.</summary>
public sealed class MixedExperimentsTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Ycsb_reports_every_workload_for_every_engine_with_latencies_and_growth()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new YcsbExperiment(records: 300, runs: 1).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        var engines = KvEngineCatalog.All.Where(KvEngineTests.Loads).Select(k => k.Name).ToList();
        Assert.Equal(YcsbWorkload.Names.SelectMany(w => engines.Select(e => (e, w))),
            rows.Select(r => (r.GetProperty("engine").GetString()!, r.GetProperty("workload").GetString()!)));
        Assert.All(rows, r => Assert.True(r.GetProperty("opsPerSec").GetDouble() > 0));
        Assert.All(rows.Where(r => r.GetProperty("workload").GetString() != YcsbWorkload.E), r => Assert.True(r.GetProperty("readP99Ms").GetDouble() > 0));
        Assert.All(rows.Where(r => r.GetProperty("workload").GetString() == YcsbWorkload.E), r => Assert.True(r.GetProperty("scanP99Ms").GetDouble() > 0));
        Assert.All(rows, r => Assert.Equal(JsonValueKind.Number, r.GetProperty("growthMiB").ValueKind));
    }

    [Fact]
    public async Task Churn_reports_rounds_and_a_summary_per_engine_with_sizes_and_write_amplification()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        // The catalog's engines; the compacting variant has its own test below.
        var engines = KvEngineCatalog.All.Where(KvEngineTests.Loads).Select(k => k.Name).ToList();
        var report = await new ChurnExperiment(records: 300, maxRounds: 3, engines: engines).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        foreach (var engine in engines)
        {
            var summary = Assert.Single(rows, r => r.GetProperty("table").GetString() == "summary" && r.GetProperty("engine").GetString() == engine);
            Assert.InRange(summary.GetProperty("rounds").GetInt32(), 1, 3);
            Assert.True(summary.GetProperty("fileMiB").GetDouble() >= summary.GetProperty("dataFileMiB").GetDouble(), engine);
            Assert.True(summary.GetProperty("dataFileMiB").GetDouble() > 0, engine);
            Assert.True(summary.GetProperty("liveMiB").GetDouble() > 0, engine);
            if (File.Exists("/proc/self/io"))
            {
                Assert.True(summary.GetProperty("writeAmplification").GetDouble() > 0.5, engine);
            }

            Assert.Equal(summary.GetProperty("rounds").GetInt32(), rows.Count(r => r.GetProperty("table").GetString() == "rounds" && r.GetProperty("engine").GetString() == engine));
        }
    }

    [Fact]
    public async Task Churn_reports_each_engines_files_after_the_initial_load_against_sqlites()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));
        var engines = KvEngineCatalog.All.Where(KvEngineTests.Loads).Select(k => k.Name).Where(e => e is KvEngineCatalog.Voron or KvEngineCatalog.Sqlite).ToList();

        var report = await new ChurnExperiment(records: 300, maxRounds: 1, engines: engines).RunAsync(context);

        var load = report.Rows.Where(r => (string?)r["table"] == "load").ToList();
        Assert.Equal(engines, load.Select(r => (string)r["engine"]!));
        Assert.All(load, r =>
        {
            Assert.True((double)r["dataFileMiB"]! > 0);
            Assert.True((double)r["dataFileOverLive"]! >= 1, "a main file holds at least its live keys and values");
            Assert.True((double)r["fileOverLive"]! >= (double)r["dataFileOverLive"]!);
        });
        if (engines.Contains(KvEngineCatalog.Sqlite))
        {
            Assert.Equal(1.0, (double)load.Single(r => (string)r["engine"]! == KvEngineCatalog.Sqlite)["dataFileVsSqlite"]!, 6);
            Assert.All(load, r => Assert.True((double)r["dataFileVsSqlite"]! > 0));
        }
    }

    [Fact]
    public async Task Churn_voron_compact_compacts_after_every_round_and_reports_the_sizes_before_and_after()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new ChurnExperiment(records: 300, maxRounds: 3, engines: [KvEngineCatalog.Voron, KvEngineCatalog.VoronCompact]).RunAsync(context);

        var rounds = report.Rows.Where(r => (string?)r["table"] == "rounds").ToList();
        var compacted = rounds.Where(r => (string)r["engine"]! == KvEngineCatalog.VoronCompact).ToList();
        Assert.Equal(rounds.Count(r => (string)r["engine"]! == KvEngineCatalog.Voron), compacted.Count);
        Assert.All(rounds.Where(r => (string)r["engine"]! == KvEngineCatalog.Voron), r => Assert.Null(r["compactSeconds"]));
        Assert.All(compacted, r =>
        {
            Assert.True((double)r["compactSeconds"]! > 0);
            Assert.True((double)r["compactWallSeconds"]! >= (double)r["compactSeconds"]!);
            Assert.True((double)r["dataFileMiBBeforeCompaction"]! >= (double)r["dataFileMiB"]!, "compaction does not grow the data file");
            Assert.True((double)r["fileOverLiveBeforeCompaction"]! > 0);
            Assert.True((double)r["fileOverLive"]! > 0);
        });
        Assert.Single(report.Rows, r => (string?)r["table"] == "summary" && (string?)r["engine"] == KvEngineCatalog.VoronCompact);
        Assert.Contains(report.Notes, n => n.StartsWith("voron-compact:", StringComparison.Ordinal));
    }

    [Fact]
    public void Churn_takes_voron_compact_on_the_command_line_and_the_other_experiments_do_not()
    {
        Assert.Equal([KvEngineCatalog.VoronCompact], CommandLine.Parse(["churn", "--engines", "voron-compact"]).GetValue(ExperimentCatalog.ChurnEngines)!);
        Assert.NotEmpty(CommandLine.Parse(["kv", "--engines", "voron-compact"]).Errors);
        Assert.DoesNotContain(KvEngineCatalog.All, k => k.Name == KvEngineCatalog.VoronCompact);
    }

    [Fact]
    public async Task Recovery_times_clean_and_crashed_opens_warm_and_cold_and_every_key_is_there()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new RecoveryExperiment(dataBytes: 2L << 20, journalBytes: [1L << 20]).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(4, rows.Count);
        Assert.Equal(["clean close", "clean close", "crash, full journal", "crash, full journal"], rows.Select(r => r.GetProperty("state").GetString()));
        Assert.Equal(["warm", "cold", "warm", "cold"], rows.Select(r => r.GetProperty("cache").GetString()));
        Assert.All(rows, r => Assert.True(r.GetProperty("openMs").GetDouble() > 0));
        Assert.All(rows.Skip(2), r => Assert.True(r.GetProperty("journalMiB").GetDouble() >= 1));
    }

    public void Dispose() => _directory.Dispose();
}
