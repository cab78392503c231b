using Voron.LoadTests.Capabilities.Orders;

namespace Voron.LoadTests.Tests;

/// <summary>
/// The compare experiment's shape, never its speed: every path runs every load and the sweep
/// with no wrong answer (a conflict is an answer; a missing order or an exception is not), and
/// the reports (JSON, Markdown, HTML, CSV) hold what the issue asks for.
/// </summary>
public sealed class CompareExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Compare_is_the_default_and_takes_its_options()
    {
        Assert.Equal("compare", ExperimentCatalog.Default);
        var definition = ExperimentCatalog.All.Single(d => d.Name == "compare");
        var parsed = CommandLine.Parse(["compare", "--paths", "documents,sqlite", "--copies", "2,8", "--duration", "0.5", "--runs", "2", "--loops", "closed"]);

        Assert.Empty(parsed.Errors);
        Assert.Equal(["documents", "sqlite"], parsed.GetValue(ExperimentCatalog.ComparePaths)!);
        Assert.Equal([2, 8], parsed.GetValue(ExperimentCatalog.CompareCopies)!);
        Assert.Equal(0.5, parsed.GetValue(ExperimentCatalog.CompareDuration));
        Assert.IsType<CompareExperiment>(definition.Create(parsed));
        Assert.Empty(CommandLine.Parse([]).Errors);
        Assert.IsType<CompareExperiment>(definition.Create(CommandLine.Parse([]))); // what a bare `dotnet run` makes
        Assert.NotEmpty(CommandLine.Parse(["compare", "--paths", "mongodb"]).Errors);
        Assert.NotEmpty(CommandLine.Parse(["compare", "--duration", "0"]).Errors);
    }

    [Fact]
    public async Task A_short_run_reports_every_path_on_every_load_without_a_wrong_answer()
    {
        using var output = new StringWriter();
        var reports = _directory.Combine("reports");

        var exit = await CommandLine.RunAsync(
            ["compare", "--quick", "--duration", "0.2", "--runs", "1", "--copies", "1,4", "--dir", _directory.Combine("data"), "--reports", reports], output);

        Assert.True(exit == 0, output.ToString());
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(reports, "compare.json")));
        var root = json.RootElement;
        var rows = root.GetProperty("rows").EnumerateArray().ToList();
        foreach (var path in OrderPaths.All)
        {
            Assert.False(string.IsNullOrWhiteSpace(root.GetProperty($"durability.{path}").GetString()));
            foreach (var copies in new[] { 1, 4 })
            {
                var row = Assert.Single(rows, r => Text(r, "table").StartsWith("closed", StringComparison.Ordinal) && Text(r, "path") == path && r.GetProperty("copies").GetInt32() == copies);
                Assert.Equal(0, row.GetProperty("failed").GetInt64());
                Assert.True(row.GetProperty("ops/s").GetDouble() > 0, $"{path} at {copies} copies did nothing");
            }

            var sweep = rows.Where(r => Text(r, "table") == "open-load sweep" && Text(r, "path") == path).ToList();
            Assert.NotEmpty(sweep);
            Assert.All(sweep, r => Assert.Equal(0, r.GetProperty("failed").GetInt64()));
            Assert.Single(rows, r => Text(r, "table") == "summary" && Text(r, "path") == path);
        }

        foreach (var path in new[] { OrderPaths.SqlVoron, OrderPaths.SqlDocs })
        {
            // The SQL counters of each run on Vfs=voron: every run wrote, so the lock was taken and held.
            var counters = rows.Where(r => Text(r, "table") == "sql counters" && Text(r, "path") == path).ToList();
            Assert.Equal(2, counters.Count);
            Assert.All(counters, r => Assert.True(r.GetProperty("commits/s").GetDouble() > 0 && r.GetProperty("lock hold ms").GetDouble() > 0, $"{path}: {r}"));
        }

        Assert.DoesNotContain(rows, r => Text(r, "table") == "sql counters" && Text(r, "path") is OrderPaths.Sqlite or OrderPaths.Documents);
        var sqlite = Assert.Single(rows, r => Text(r, "table").StartsWith("closed", StringComparison.Ordinal) && Text(r, "path") == OrderPaths.Sqlite && r.GetProperty("copies").GetInt32() == 4);
        Assert.Equal(1, sqlite.GetProperty("ops ×sqlite").GetDouble(), 6);
        var html = await File.ReadAllTextAsync(Path.Combine(reports, "compare.html"));
        Assert.Contains("<svg", html, StringComparison.Ordinal);
        Assert.Contains("summary", html, StringComparison.Ordinal);
        Assert.NotEmpty(Directory.GetFiles(Path.Combine(reports, "compare"), "*.csv"));
        Assert.EndsWith("compare.html", output.ToString().TrimEnd(), StringComparison.Ordinal);
    }

    private static string Text(JsonElement row, string column) =>
        row.TryGetProperty(column, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString()! : "";

    public void Dispose() => _directory.Dispose();
}
