using Voron.Diagnostics;
using Voron.Diagnostics.Engines.SqlDocs;
using Voron.Diagnostics.Experiments;
using Voron.Diagnostics.Experiments.SqlDocs;

namespace Voron.LoadTests.Tests.Diagnostics;

public sealed class SqlDocsExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Sqldocs_is_a_diagnostic_with_its_options()
    {
        Assert.IsType<SqlDocsExperiment>(DiagnosticsCatalog.Find("sqldocs"));
        var parsed = DiagnosticsCatalog.Parse(["sqldocs", "--documents", "1000", "--seconds", "2", "--rounds", "4", "--engines", "sqlite,voron-sql-docs"]);

        Assert.Empty(parsed.Errors);
        Assert.Equal(1000, parsed.GetValue(DiagnosticsCatalog.SqlDocsDocuments));
        Assert.Equal(["sqlite", "voron-sql-docs"], parsed.GetValue(DiagnosticsCatalog.SqlDocsEngineNames)!);
    }

    /// <summary>
    /// Regression: without --engines the command line handed the experiment an empty list, and the
    /// run opened no engine at all and saved an empty table. An absent list now means every engine.
    /// </summary>
    [Fact]
    public void Sqldocs_without_engines_runs_every_engine()
    {
        var definition = DiagnosticsCatalog.All.Single(d => d.Name == "sqldocs");

        var all = Assert.IsType<SqlDocsExperiment>(definition.Create(DiagnosticsCatalog.Parse(["sqldocs"])));
        var given = Assert.IsType<SqlDocsExperiment>(definition.Create(DiagnosticsCatalog.Parse(["sqldocs", "--engines", "sqlite"])));

        Assert.Equal(SqlDocsEngines.All, all.Engines);
        Assert.Equal(["sqlite"], given.Engines);
    }

    /// <summary>
    /// The report's shape, never its speed: one row per engine and configuration with the fields
    /// the experiment promises, the ratios and targets on voron-sql-docs' rows only, the same rows
    /// read by every engine, the plans naming the indexes, and both files saved.
    /// </summary>
    [Fact]
    public async Task Run_reports_every_engine_on_every_workload_with_the_required_fields()
    {
        using var output = new StringWriter();
        var reports = _directory.Combine("reports");
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"), reports);

        var report = await new SqlDocsExperiment(documents: 300, duration: TimeSpan.FromMilliseconds(20), rounds: 1, warmUp: false).RunAsync(context);
        var saved = report.Save(reports);
        var (jsonPath, markdownPath) = (saved.Json, saved.Markdown);

        using var json = JsonDocument.Parse(File.ReadAllText(jsonPath));
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(SqlDocsWorkloads.All.Length * SqlDocsEngines.All.Length, rows.Count);
        Assert.Equal(SqlDocsWorkloads.All.Length, json.RootElement.EnumerateObject().Count(p => p.Name.StartsWith($"sqlCounters.{SqlDocsEngines.VoronSqlDocs}.", StringComparison.Ordinal)));
        Assert.DoesNotContain(json.RootElement.EnumerateObject(), p => p.Name.StartsWith("sqlCounters.", StringComparison.Ordinal) && !p.Name.StartsWith($"sqlCounters.{SqlDocsEngines.VoronSqlDocs}.", StringComparison.Ordinal));
        foreach (var (workload, connections) in SqlDocsWorkloads.All)
        {
            foreach (var engine in SqlDocsEngines.All)
            {
                var what = $"{engine} {workload} {connections}";
                var row = Assert.Single(rows, r => r.GetProperty("engine").GetString() == engine && r.GetProperty("workload").GetString() == workload &&
                                                   r.GetProperty("connections").GetInt32() == connections);
                Assert.True(row.GetProperty("ops").GetInt64() >= connections, what); // every caller completes at least one operation
                Assert.True(row.GetProperty("opsPerSec").GetDouble() > 0, what);
                Assert.Equal(0, row.GetProperty("failed").GetInt64()); // a wrong answer (a missing profile) or an exception would count here
                var run = Assert.Single(report.Scenarios, s => s.Engine == engine && s.Load == $"{workload}, closed {connections}");
                Assert.Equal(row.GetProperty("ops").GetInt64(), run.Stats.Step(workload).Ok.Count);
                Assert.True(row.GetProperty("p99Ms").GetDouble() >= row.GetProperty("p50Ms").GetDouble(), what);
                var voronSqlDocs = engine == SqlDocsEngines.VoronSqlDocs;
                Assert.Equal(voronSqlDocs, row.GetProperty("vsSqlite").ValueKind == JsonValueKind.Number);
                Assert.Equal(voronSqlDocs, row.GetProperty("vsDocuments").ValueKind == JsonValueKind.Number);
                Assert.Equal(voronSqlDocs, row.GetProperty("target").ValueKind == JsonValueKind.String);
                var rowsPerOp = row.GetProperty("rowsPerOp");
                switch (workload)
                {
                    case SqlDocsWorkloads.Lookup:
                        Assert.Equal(1, rowsPerOp.GetDouble());
                        break;
                    case SqlDocsWorkloads.Join:
                        Assert.Equal(SqlDocsWorkloads.Take, rowsPerOp.GetDouble()); // every purchase row found its profile
                        break;
                    case SqlDocsWorkloads.QueryEqual or SqlDocsWorkloads.QueryRange:
                        Assert.InRange(rowsPerOp.GetDouble(), double.Epsilon, SqlDocsWorkloads.Take);
                        break;
                    default:
                        Assert.Equal(JsonValueKind.Null, rowsPerOp.ValueKind);
                        break;
                }
            }
        }

        var crossDoor = Assert.Single(rows, r => r.GetProperty("engine").GetString() == SqlDocsEngines.VoronSqlDocs && r.GetProperty("workload").GetString() == SqlDocsWorkloads.CrossDoor);
        Assert.Equal("vsSqlite >= 10", crossDoor.GetProperty("target").GetString());
        var lookup = Assert.Single(rows, r => r.GetProperty("engine").GetString() == SqlDocsEngines.VoronSqlDocs && r.GetProperty("workload").GetString() == SqlDocsWorkloads.Lookup);
        Assert.Equal("vsSqlite >= 1.2, vsDocuments >= 0.7", lookup.GetProperty("target").GetString());
        Assert.Matches("^(yes|no), (yes|no)$", lookup.GetProperty("met").GetString());

        var root = json.RootElement;
        Assert.True(root.GetProperty("fdatasyncMedianMs").GetDouble() > 0);
        Assert.Contains("synchronous=FULL", root.GetProperty("durability.sqlite").GetString(), StringComparison.Ordinal);
        Assert.All(SqlDocsEngines.All, e => Assert.False(string.IsNullOrEmpty(root.GetProperty($"durability.{e}").GetString())));
        Assert.Contains(SqlDocsData.CityIndex, root.GetProperty("plan.sqlite.query-eq").GetString(), StringComparison.Ordinal);
        Assert.Contains(SqlDocsData.CityIndex, root.GetProperty("plan.voron-sql-docs.query-eq").GetString(), StringComparison.Ordinal);
        Assert.Contains(SqlDocsData.AgeIndex, root.GetProperty("plan.voron-sql-docs.query-range").GetString(), StringComparison.Ordinal);

        var markdown = File.ReadAllText(markdownPath);
        Assert.Contains("| engine | workload | connections | ops | opsPerSec | p50Ms | p99Ms | rowsPerOp | vsSqlite | vsDocuments | target | met |", markdown, StringComparison.Ordinal);
        Assert.All(SqlDocsEngines.All, e => Assert.Contains($"| {e} |", markdown, StringComparison.Ordinal));
    }

    public void Dispose() => _directory.Dispose();
}
