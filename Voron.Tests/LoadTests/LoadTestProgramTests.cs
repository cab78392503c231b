using System.Text.Json;
using Voron.LoadTests;

namespace Voron.Tests.LoadTests;

public sealed class LoadTestProgramTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Machine_quick_run_writes_json_and_markdown_reports_with_every_measure()
    {
        var reports = _directory.Combine("reports");
        using var output = new StringWriter();

        var exit = await CommandLine.RunAsync(["machine", "--quick", "--dir", _directory.Combine("data"), "--reports", reports], output);

        Assert.Equal(0, exit);
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(reports, "machine.json")));
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(["4 KiB", "4 KiB", "64 KiB", "64 KiB", "1 MiB", "1 MiB", "64 MiB"], rows.Select(r => r.GetProperty("size").GetString()));
        Assert.Equal(["preallocated", "written (zero-filled)"], rows.Take(2).Select(r => r.GetProperty("space").GetString()));
        Assert.All(rows.Take(6), r => Assert.True(r.GetProperty("medianMs").GetDouble() > 0));
        Assert.True(json.RootElement.GetProperty("fdatasyncMedianMs4k").GetDouble() > 0);
        Assert.True(json.RootElement.GetProperty("fdatasyncMedianMs4kPreallocated").GetDouble() > 0);
        Assert.True(json.RootElement.GetProperty("sequentialWriteMBps").GetDouble() > 0);
        Assert.Contains("| write+fdatasync | written (zero-filled) | 4 KiB |", await File.ReadAllTextAsync(Path.Combine(reports, "machine.md")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Unknown_experiment_prints_the_list_and_exits_with_2()
    {
        using var output = new StringWriter();

        var exit = await CommandLine.RunAsync(["no-such-experiment"], output);

        Assert.Equal(2, exit);
        Assert.Contains("machine", output.ToString(), StringComparison.Ordinal);
    }

    public void Dispose() => _directory.Dispose();
}
