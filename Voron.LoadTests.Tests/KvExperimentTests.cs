using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Tests;

public sealed class KvExperimentTests : IDisposable
{
    private const int Entries = 2_000;

    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Run_reports_every_workload_for_every_engine_that_loads_with_medians_over_the_runs()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new KvExperiment(Entries, runs: 2).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var root = json.RootElement;
        var rows = root.GetProperty("rows").EnumerateArray().ToList();
        var expected = KvEngineCatalog.All.Where(KvEngineTests.Loads).Select(k => k.Name).ToList();
        Assert.Contains(KvEngineCatalog.Sqlite, expected);
        Assert.Equal(
            KvExperiment.Workloads.SelectMany(w => expected.Select(e => (e, w))),
            rows.Select(r => (r.GetProperty("engine").GetString()!, r.GetProperty("workload").GetString()!)));
        Assert.All(rows, r => Assert.Equal(2, r.GetProperty("runs").GetInt32()));
        Assert.All(rows, r => Assert.True(r.GetProperty("minOpsPerSec").GetDouble() <= r.GetProperty("opsPerSec").GetDouble()));
        Assert.All(rows, r => Assert.True(r.GetProperty("opsPerSec").GetDouble() <= r.GetProperty("maxOpsPerSec").GetDouble()));
        Assert.Equal(Entries, rows.First(r => r.GetProperty("workload").GetString() == KvExperiment.SeqInsert).GetProperty("ops").GetInt64());
        Assert.Equal("SQLite via Microsoft.Data.Sqlite", rows.First(r => r.GetProperty("engine").GetString() == KvEngineCatalog.Sqlite).GetProperty("label").GetString());
        foreach (var row in rows.Where(r => KvExperiment.WriteWorkloads.Contains(r.GetProperty("workload").GetString())))
        {
            // Settled includes the acknowledged time, so it is never the faster of the two.
            Assert.True(row.GetProperty("opsPerSec").GetDouble() <= row.GetProperty("ackOpsPerSec").GetDouble() * 1.0001, row.ToString());
            Assert.True(row.GetProperty("onDiskMiB").GetDouble() > 0, row.ToString());
            Assert.True(row.GetProperty("cpuUsPerOp").GetDouble() > 0, row.ToString());
            // Settled includes the acknowledged span, so it never spent less CPU.
            Assert.True(row.GetProperty("settledCpuUsPerOp").GetDouble() >= row.GetProperty("cpuUsPerOp").GetDouble(), row.ToString());
            Assert.True(row.GetProperty("allocBytesPerOp").GetDouble() >= 0, row.ToString());
            if (row.GetProperty("engine").GetString() == KvEngineCatalog.Lmdb)
            {
                Assert.Equal(1.0, row.GetProperty("cpuVsLmdb").GetDouble());
            }
            if (File.Exists("/proc/self/io"))
            {
                Assert.True(row.GetProperty("bytesWrittenPerOp").GetDouble() > 0, row.ToString());
                Assert.True(row.GetProperty("writeAmplification").GetDouble() > 0.5, row.ToString());
            }
        }

        Assert.All(rows.Where(r => !KvExperiment.WriteWorkloads.Contains(r.GetProperty("workload").GetString())),
            r => Assert.Equal(JsonValueKind.Null, r.GetProperty("cpuUsPerOp").ValueKind));
        Assert.All(rows.Where(r => r.GetProperty("engine").GetString() == KvEngineCatalog.Sqlite),
            r => Assert.Equal(1.0, r.GetProperty("vsSqlite").GetDouble()));
        Assert.Equal(Entries, root.GetProperty("entries").GetInt32());
        Assert.True(root.GetProperty("fdatasyncMedianMs").GetDouble() > 0);
        Assert.True(root.GetProperty("fsyncAppendMedianMs").GetDouble() > 0);
        Assert.NotEqual(root.GetProperty("orderRun1").GetString(), root.GetProperty("orderRun2").GetString());
        Assert.Equal(0, root.GetProperty("flushDelayMs").GetDouble());
    }

    [Fact]
    public async Task Engines_can_be_chosen_and_each_prints_a_progress_line_per_workload()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new KvExperiment(400, runs: 1, engines: [KvEngineCatalog.Voron]).RunAsync(context);

        Assert.All(report.Rows, r => Assert.Equal(KvEngineCatalog.Voron, r["engine"]));
        var lines = output.ToString().Split('\n');
        Assert.All(KvExperiment.Workloads, w => Assert.Contains(lines, l => l.Contains($"{KvEngineCatalog.Voron,-11} {w}: ", StringComparison.Ordinal)));
    }

    public void Dispose() => _directory.Dispose();
}
