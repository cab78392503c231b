using System.Text.Json;
using Voron.LoadTests.Engines;
using Voron.LoadTests.Experiments;

namespace Voron.LoadTests.Tests;

/// <summary>Small runs of the ycsb, churn, recovery and syscalls experiments: every row there, with its fields. No speed is asserted.</summary>
public sealed class MixedExperimentsTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Theory]
    [InlineData("ycsb", typeof(YcsbExperiment))]
    [InlineData("churn", typeof(ChurnExperiment))]
    [InlineData("recovery", typeof(RecoveryExperiment))]
    [InlineData("syscalls", typeof(SyscallsExperiment))]
    public void Each_is_registered_in_the_catalog(string name, Type type) => Assert.IsType(type, ExperimentCatalog.Find(name));

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

        var report = await new ChurnExperiment(records: 300, maxRounds: 3).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        foreach (var engine in KvEngineCatalog.All.Where(KvEngineTests.Loads).Select(k => k.Name))
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

    [Fact]
    public void Strace_summaries_are_parsed_with_and_without_an_errors_column()
    {
        const string text = """
            % time     seconds  usecs/call     calls    errors syscall
            ------ ----------- ----------- --------- --------- -----------------------
             58.47    0.045518        1011        45         8 futex
              3.29    0.002562           5       470           mprotect
              0.10    0.000100          50         2           fdatasync
            ------ ----------- ----------- --------- --------- -----------------------
            100.00    0.077847          43      1779       334 total
            """;

        var counts = SyscallsExperiment.ParseSummary(text);

        Assert.Equal(new Dictionary<string, long> { ["futex"] = 45, ["mprotect"] = 470, ["fdatasync"] = 2 }, counts);
    }

    public void Dispose() => _directory.Dispose();
}
