using Voron.LoadTests;

namespace Voron.LoadTests.Tests;

/// <summary>The program as a user runs it: the suites, the preflight every report states, the names that moved.</summary>
public sealed class LoadTestProgramTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void The_suites_are_the_ones_a_user_runs_to_choose_a_store() =>
        Assert.Equal(["compare", "kv", "ycsb", "documents", "sql", "merge", "churn", "ops", "replicate"], ExperimentCatalog.All.Select(e => e.Name));

    [Theory]
    [InlineData("compare", typeof(CompareExperiment))]
    [InlineData("kv", typeof(KvExperiment))]
    [InlineData("ycsb", typeof(YcsbExperiment))]
    [InlineData("sql", typeof(SqlExperiment))]
    [InlineData("merge", typeof(MergeExperiment))]
    [InlineData("churn", typeof(ChurnExperiment))]
    [InlineData("replicate", typeof(ReplicateExperiment))]
    public void A_suite_of_one_experiment_is_that_experiment(string name, Type type) => Assert.IsType(type, ExperimentCatalog.Find(name));

    [Theory]
    [InlineData("documents", typeof(DocumentsExperiment))]
    [InlineData("documents", typeof(ExpiryExperiment))]
    [InlineData("ops", typeof(BackupExperiment))]
    [InlineData("ops", typeof(ToolsExperiment))]
    [InlineData("ops", typeof(RecoveryExperiment))]
    public void A_suite_of_several_experiments_runs_each_as_a_part(string name, Type type) =>
        Assert.Single(Assert.IsType<Suite>(ExperimentCatalog.Find(name)).Parts, p => p.Experiment.GetType() == type);

    [Fact]
    public async Task A_suite_saves_a_report_per_part_each_stating_the_one_preflight_and_its_own_disk()
    {
        var reports = _directory.Combine("reports");
        using var output = new StringWriter();

        var exit = await CommandLine.RunAsync(["ops", "--parts", "recovery", "--quick", "--dir", _directory.Combine("data"), "--reports", reports], output);

        Assert.Equal(0, exit);
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(reports, "recovery.json")));
        foreach (var fact in new[] { "fdatasyncMedianMs", "fdatasyncAppendMedianMs", "fsyncAppendMedianMs", "sequentialWriteMiBps" })
        {
            Assert.True(json.RootElement.GetProperty(fact).GetDouble() > 0, fact);
        }

        Assert.False(File.Exists(Path.Combine(reports, "backup.json")), "--parts recovery runs only that part");
        Assert.Single(output.ToString().Split('\n'), line => line.Contains("preflight: fdatasync", StringComparison.Ordinal));
        Assert.Equal($"Saved {Path.Combine(reports, "recovery.html")}", output.ToString().TrimEnd().Split('\n')[^1].TrimEnd()); // the page to open, last
    }

    [Fact]
    public async Task Unknown_suite_prints_the_list_and_exits_with_2()
    {
        using var output = new StringWriter();

        var exit = await CommandLine.RunAsync(["no-such-experiment"], output);

        Assert.Equal(2, exit);
        Assert.Contains("no-such-experiment", output.ToString(), StringComparison.Ordinal);
        Assert.Contains("compare", output.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("backup", "ops --parts backup")]
    [InlineData("sqldocs", "--project Voron.Diagnostics -- sqldocs")]
    [InlineData("expiry", "documents --parts expiry")]
    [InlineData("machine", "preflight")]
    [InlineData("journal", "--project Voron.Diagnostics -- journal")]
    public async Task An_old_name_says_where_it_went_and_exits_with_2(string name, string expected)
    {
        using var output = new StringWriter();

        var exit = await CommandLine.RunAsync([name, "--quick"], output);

        Assert.Equal(CommandLine.UsageError, exit);
        Assert.Contains(expected, output.ToString(), StringComparison.Ordinal);
    }

    public void Dispose() => _directory.Dispose();
}
