using System.Text.Json;
using Voron.LoadTests.Engines;
using Voron.LoadTests.Experiments;

namespace Voron.Tests.LoadTests;

public sealed class KvExperimentTests : IDisposable
{
    private const int Entries = 2_000;

    private static readonly string[] Workloads =
        [KvExperiment.SeqInsert, KvExperiment.RandomInsert, KvExperiment.RandomRead1, KvExperiment.RandomRead2, KvExperiment.Scan];

    private readonly TempDirectory _directory = new();

    [Fact]
    public void Kv_is_registered_in_the_catalog() => Assert.IsType<KvExperiment>(ExperimentCatalog.Find("kv"));

    [Fact]
    public async Task Run_reports_every_workload_for_every_engine_that_loads_with_all_entries_scanned()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new KvExperiment(Entries).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var root = json.RootElement;
        var rows = root.GetProperty("rows").EnumerateArray().ToList();
        var expected = KvEngineCatalog.All.Where(Loads).Select(k => k.Name).ToList();
        Assert.Contains(KvEngineCatalog.Sqlite, expected);
        Assert.Equal(
            Workloads.SelectMany(w => expected.Select(e => (e, w))),
            rows.Select(r => (r.GetProperty("engine").GetString()!, r.GetProperty("workload").GetString()!)));
        Assert.All(rows, r => Assert.Equal(Entries, r.GetProperty("ops").GetInt64()));
        Assert.All(rows, r => Assert.True(r.GetProperty("opsPerSec").GetDouble() > 0));
        Assert.All(rows.Where(r => r.GetProperty("engine").GetString() == KvEngineCatalog.Sqlite),
            r => Assert.Equal(1.0, r.GetProperty("vsSqlite").GetDouble()));
        Assert.Equal(Entries, root.GetProperty("entries").GetInt32());
        Assert.True(root.GetProperty("fdatasyncMedianMs").GetDouble() > 0);
        Assert.Equal(KvEngineCatalog.All.Count - expected.Count, root.GetProperty("notes").EnumerateArray()
            .Count(n => n.GetString()!.Contains("skipped", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task Run_prints_a_progress_line_with_the_time_for_each_engine_and_workload()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        await new KvExperiment(200).RunAsync(context);

        var lines = output.ToString().Split('\n');
        foreach (var engine in KvEngineCatalog.All.Where(Loads))
        {
            Assert.All(Workloads, w => Assert.Contains(lines, l => l.Contains($"{engine.Name,-7} {w}: 200 ops in ", StringComparison.Ordinal)));
        }
    }

    private static bool Loads(KvEngineKind kind)
    {
        try
        {
            kind.Probe();
            return true;
        }
        catch (DllNotFoundException)
        {
            return false;
        }
    }

    public void Dispose() => _directory.Dispose();
}
