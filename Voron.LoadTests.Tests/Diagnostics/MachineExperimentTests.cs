using Voron.Diagnostics;

namespace Voron.LoadTests.Tests.Diagnostics;

public sealed class MachineExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Machine_quick_run_writes_json_and_markdown_reports_with_every_measure()
    {
        var reports = _directory.Combine("reports");
        using var output = new StringWriter();

        var exit = await DiagnosticsCatalog.RunAsync(["machine", "--quick", "--dir", _directory.Combine("data"), "--reports", reports], output);

        Assert.Equal(0, exit);
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(reports, "machine.json")));
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        string[] sizes = ["4 KiB", "64 KiB", "1 MiB"];
        Assert.Equal([.. sizes.SelectMany(s => Enumerable.Repeat(s, 6)), "64 MiB"], rows.Select(r => r.GetProperty("size").GetString()));
        Assert.Equal(["written (zero-filled)", "written (zero-filled)", "preallocated", "preallocated", "appended", "appended"], rows.Take(6).Select(r => r.GetProperty("space").GetString()));
        Assert.Equal(["write+fdatasync", "write+fsync"], rows.Take(2).Select(r => r.GetProperty("measure").GetString()));
        Assert.All(rows.Take(18), r => Assert.True(r.GetProperty("medianMs").GetDouble() > 0));
        Assert.All(rows.Take(18).Where(r => r.GetProperty("measure").GetString() == "write+fsync"), r => Assert.True(r.GetProperty("vsFdatasync").GetDouble() > 0));
        foreach (var fact in new[] { "fdatasyncMedianMs4k", "fdatasyncMedianMs4kPreallocated", "fdatasyncMedianMs4kAppended", "fsyncMedianMs4k", "fsyncMedianMs4kAppended", "sequentialWriteMiBps" })
        {
            Assert.True(json.RootElement.GetProperty(fact).GetDouble() > 0, fact);
        }

        Assert.True(rows[^1].GetProperty("mibPerSec").GetDouble() > 0);
        Assert.False(json.RootElement.TryGetProperty("sequentialWriteMBps", out _), "bandwidth is in MiB/s and says so");
        Assert.NotNull(json.RootElement.GetProperty("cpuModel").GetString());
        Assert.NotNull(json.RootElement.GetProperty("fileSystem").GetString());
        Assert.NotNull(json.RootElement.GetProperty("mountOptions").GetString());
        var markdown = await File.ReadAllTextAsync(Path.Combine(reports, "machine.md"));
        Assert.Contains("| write+fdatasync | written (zero-filled) | 4 KiB |", markdown, StringComparison.Ordinal);
        Assert.Contains("| write+fsync | appended | 4 KiB |", markdown, StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(reports, "machine.html")));
        Assert.Equal($"Saved {Path.Combine(reports, "machine.html")}", output.ToString().TrimEnd().Split('\n')[^1].TrimEnd()); // the page to open, last
    }

    public void Dispose() => _directory.Dispose();
}
