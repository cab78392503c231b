namespace Voron.Tool.Tests;

public sealed class SmokeTests
{
    [Fact]
    public async Task An_unknown_command_is_a_usage_error()
    {
        var run = await ToolRun.RunAsync("frobnicate");
        Assert.Equal(ExitCodes.Usage, run.ExitCode);
    }

    [Fact]
    public async Task The_test_stores_are_made()
    {
        using var clean = new TempDirectory();
        TestStores.CreateClean(clean.Path);
        using var full = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(full.Path);
        Assert.True(File.Exists(Path.Combine(full.Path, "voron.data")));
    }
}
