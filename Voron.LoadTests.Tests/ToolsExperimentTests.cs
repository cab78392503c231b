using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Tests;

/// <summary>
/// A tiny run of the <c>tools</c> experiment (a few hundred documents, one round): every table
/// and row there, every figure positive. No speed is asserted: the targets' met column is only
/// checked to be a verdict.
/// </summary>
public sealed class ToolsExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Tools_is_part_of_the_ops_suite_with_its_options()
    {
        SuiteParts.Part<ToolsExperiment>(ExperimentCatalog.Find("ops"));
        var parsed = CommandLine.Parse(["ops", "--parts", "tools", "--documents", "5000", "--rounds", "2"]);
        Assert.Empty(parsed.Errors);
        Assert.Equal(5000, parsed.GetValue(ExperimentCatalog.ToolsDocuments));
        Assert.Equal(2, parsed.GetValue(ExperimentCatalog.OpsRounds));
    }

    [Fact]
    public async Task Tools_reports_check_against_cat_export_and_import_against_the_api()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new ToolsExperiment(documents: 300, rounds: 1).RunAsync(context);

        var throughput = Table(report, ToolsExperiment.ThroughputTable);
        var methods = throughput.Select(r => (string)r["method"]!).ToList();
        Assert.Contains(ToolsExperiment.Check, methods);
        Assert.Contains(ToolsExperiment.Export, methods);
        Assert.All(throughput, r => Assert.True((double)r["MBps"]! > 0));
        var export = throughput.Single(r => (string)r["method"]! == ToolsExperiment.Export);
        Assert.True((double)export["documentsPerSecond"]! > 0);
        Assert.IsType<bool>(export["met"]);

        var import = Table(report, ToolsExperiment.ImportTable);
        Assert.Equal([ToolsExperiment.BulkApi, ToolsExperiment.Import], import.Select(r => (string)r["method"]!));
        Assert.All(import, r => Assert.True((double)r["documentsPerSecond"]! > 0));
        Assert.Equal(1.0, (double)import[0]["vsApi"]!, 6);
        Assert.IsType<bool>(import[1]["met"]);
        Assert.Equal(methods.Count + 2, Table(report, ToolsExperiment.RunsTable).Count);
    }

    private static List<Dictionary<string, object?>> Table(Report report, string table) =>
        [.. report.Rows.Where(r => (string?)r["table"] == table)];

    public void Dispose() => _directory.Dispose();
}
