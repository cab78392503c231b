using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Tests;

public sealed class SqlExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Run_reports_every_engine_and_workload_with_the_required_fields()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));
        (string, int)[] configurations =
        [
            (SqlExperiment.Insert, 4), (SqlExperiment.PointSelect, 1), (SqlExperiment.RangeSelect, 2),
            (SqlExperiment.Update, 2), (SqlExperiment.MultiDbInsert, 16),
        ];

        var report = await new SqlExperiment(TimeSpan.FromMilliseconds(40), configurations).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        foreach (var (workload, connections) in configurations)
        {
            foreach (var engine in SqlEngines.All)
            {
                var row = Assert.Single(rows, r => r.GetProperty("engine").GetString() == engine && r.GetProperty("workload").GetString() == workload);
                Assert.Equal(connections, row.GetProperty("connections").GetInt32());
                Assert.True(row.GetProperty("txPerSec").GetDouble() > 0, $"{engine} {workload}");
                Assert.True(row.GetProperty("p99Ms").GetDouble() > 0, $"{engine} {workload}");
                Assert.True(row.GetProperty("bytesWrittenPerTx").GetDouble() >= 0, $"{engine} {workload}");
                Assert.Equal(0, row.GetProperty("failed").GetInt64());
                Assert.Equal(engine == SqlEngines.Voron, row.GetProperty("dataBytesPerTx").ValueKind == JsonValueKind.Number);
                var flushes = row.GetProperty("journalFlushesPerCommit");
                Assert.Equal(engine == SqlEngines.Voron && workload is not (SqlExperiment.PointSelect or SqlExperiment.RangeSelect), flushes.ValueKind == JsonValueKind.Number);
            }
        }

        // Voron's SQL counters, one fact per configuration and round; none for stock SQLite.
        var insert = json.RootElement.GetProperty($"sqlCounters.{SqlEngines.Voron}.{SqlExperiment.Insert}.4.r1").GetString()!;
        Assert.Matches(@"^[1-9]\d* commits .*write lock: [1-9]\d* turns", insert);
        Assert.False(json.RootElement.TryGetProperty($"sqlCounters.{SqlEngines.SqliteWal}.{SqlExperiment.Insert}.4.r1", out _));
        Assert.True(json.RootElement.GetProperty("fdatasyncMedianMs").GetDouble() > 0);

        // every round is kept whole for the HTML report, under a load name the engines share
        Assert.Equal(configurations.Length * SqlEngines.All.Length, report.Scenarios.Count);
        foreach (var (workload, connections) in configurations)
        {
            Assert.All(SqlEngines.All, engine => Assert.Single(report.Scenarios, s => s.Engine == engine && s.Load == SqlExperiment.LoadName(workload, connections)));
        }

        Assert.All(report.Scenarios, s => Assert.True(s.Stats.Step(s.Load.Split(',')[0]).Ok.Count > 0, s.Load));
    }

    public void Dispose() => _directory.Dispose();
}
