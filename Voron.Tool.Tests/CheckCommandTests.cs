using System.Text.Json;

namespace Voron.Tool.Tests;

/// <summary><c>voron check</c> on undamaged stores: every stage reported ok, exit 0, JSON that parses.</summary>
public sealed class CheckCommandTests(DamageFixture stores) : IClassFixture<DamageFixture>
{
    [Fact]
    public async Task A_clean_store_passes_every_stage()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);

        var run = await ToolRun.RunAsync("check", store);

        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Contains("pages and trees:", run.Out, StringComparison.Ordinal);
        Assert.Matches(@"pages and trees:\s+ok, [\d,]+ pages, 1 tree, 11 entries", run.Out);
        Assert.Contains("the store holds no documents", run.Out, StringComparison.Ordinal);
        Assert.Contains("the store holds no SQLite database", run.Out, StringComparison.Ordinal);
        Assert.Contains("No damage found.", run.Out, StringComparison.Ordinal);
        Assert.Contains("check pages and trees:", run.Error, StringComparison.Ordinal); // progress goes to standard error
        Assert.Matches(@"files:\s+ok, \d+ files, transaction \d+, 0 transactions in the journal past the data file \(\d+\.\d\d s\)", run.Out);
    }

    [Fact]
    public async Task A_store_with_documents_and_sql_checks_documents_against_indexes_and_every_database()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Full, scratch);

        var run = await ToolRun.RunAsync("check", store, "--json");

        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        using var parsed = JsonDocument.Parse(run.Out);
        Assert.False(parsed.RootElement.GetProperty("damaged").GetBoolean());
        var stages = parsed.RootElement.GetProperty("stages").EnumerateArray()
            .ToDictionary(s => s.GetProperty("name").GetString()!, s => (Status: s.GetProperty("status").GetString(), Detail: s.GetProperty("detail").GetString()!));
        Assert.Equal(["files", "open", "pages and trees", "documents", "sqlite shop"], stages.Keys);
        Assert.True(parsed.RootElement.GetProperty("complete").GetBoolean());
        Assert.All(parsed.RootElement.GetProperty("stages").EnumerateArray(), s => Assert.True(s.GetProperty("seconds").GetDouble() >= 0));
        Assert.All(stages.Values, stage => Assert.Equal("ok", stage.Status));
        Assert.StartsWith($"{TestStores.Orders + TestStores.Customers} documents in 2 collections, 1 index with {TestStores.Orders} entries", stages["documents"].Detail, StringComparison.Ordinal);
        Assert.StartsWith("integrity_check ok", stages["sqlite shop"].Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_store_closed_without_a_flush_is_recovered_and_passes()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Unflushed, scratch);
        var run = await ToolRun.RunAsync("check", store);
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Matches($@"pages and trees:\s+ok, [\d,]+ pages, 1 tree, {41 + stores.Records.Count} entries", run.Out);
    }

    /// <summary>On a terminal the progress is a bar on standard error; standard output still carries the report alone.</summary>
    [Fact]
    public async Task An_interactive_check_draws_progress_on_standard_error_only()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Full, scratch);
        var output = new StringWriter();
        var error = new StringWriter();

        var exit = await VoronTool.RunAsync(["check", store], new ToolConsole(output, error, new StringReader(""), Interactive: true), CancellationToken.None);

        Assert.True(exit == ExitCodes.Ok, $"{output}\n{error}");
        Assert.StartsWith("files:", output.ToString(), StringComparison.Ordinal);
        Assert.Contains("check pages and trees", error.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("check pages and trees", output.ToString(), StringComparison.Ordinal);
    }
}
