namespace Voron.Tool.Tests;

public sealed class BackupCommandTests
{
    [Fact]
    public async Task A_clean_store_is_backed_up_verified_and_the_copy_opens()
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        TestStores.CreateClean(store);
        var run = await ToolRun.RunAsync("backup", store, temp.Combine("backup"));
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Matches(@"(?m)^transaction:\s+\d+$", run.Out);
        Assert.Matches(@"(?m)^verified:\s+yes$", run.Out);
        Assert.Matches(@"(?m)^compacted:\s+no$", run.Out);
        Assert.Contains("copy", run.Error); // progress went to standard error, as plain lines
        Assert.Equal(11, StoreContents.CleanStoreEntries(temp.Combine("backup")));
    }

    [Fact]
    public async Task Compact_and_no_verify_are_passed_on()
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        await TestStores.CreateWithDocumentsAndSqlAsync(store);
        var run = await ToolRun.RunAsync("backup", store, temp.Combine("backup"), "--compact", "--no-verify", "--max-bytes-per-second", "1000000000");
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Matches(@"(?m)^compacted:\s+yes$", run.Out);
        Assert.Matches(@"(?m)^verified:\s+no$", run.Out);
        await StoreContents.AssertSameDocumentsAsync(store, temp.Combine("backup"));
    }

    [Fact]
    public async Task A_missing_store_or_a_bad_option_is_a_usage_error()
    {
        using var temp = new TempDirectory();
        var missing = await ToolRun.RunAsync("backup", temp.Combine("nope"), temp.Combine("backup"));
        Assert.Equal(ExitCodes.Usage, missing.ExitCode);
        Assert.Contains("does not exist", missing.Error);
        Assert.False(Directory.Exists(temp.Combine("nope")));

        TestStores.CreateClean(temp.Combine("store"));
        var badRate = await ToolRun.RunAsync("backup", temp.Combine("store"), temp.Combine("backup"), "--max-bytes-per-second", "fast");
        Assert.Equal(ExitCodes.Usage, badRate.ExitCode);
        var zeroRate = await ToolRun.RunAsync("backup", temp.Combine("store"), temp.Combine("backup"), "--max-bytes-per-second", "0");
        Assert.Equal(ExitCodes.Usage, zeroRate.ExitCode);
        var noDestination = await ToolRun.RunAsync("backup", temp.Combine("store"));
        Assert.Equal(ExitCodes.Usage, noDestination.ExitCode);
    }

    [Fact]
    public async Task A_backup_never_writes_over_another_and_a_store_open_elsewhere_is_refused()
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        TestStores.CreateClean(store);
        Assert.Equal(ExitCodes.Ok, (await ToolRun.RunAsync("backup", store, temp.Combine("backup"))).ExitCode);
        var again = await ToolRun.RunAsync("backup", store, temp.Combine("backup"));
        Assert.Equal(ExitCodes.Failed, again.ExitCode);
        Assert.Contains("already holds a backup", again.Error);

        using (StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(store)))
        {
            var locked = await ToolRun.RunAsync("backup", store, temp.Combine("backup2"));
            Assert.Equal(ExitCodes.Failed, locked.ExitCode);
            Assert.Contains("BackupAsync", locked.Error); // the message says how a running application backs up
        }
    }

    [Fact]
    public async Task On_a_terminal_progress_is_drawn_on_standard_error_and_standard_output_keeps_only_the_result()
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        TestStores.CreateClean(store);
        var output = new StringWriter();
        var error = new StringWriter();
        var console = new ToolConsole(output, error, new StringReader(""), Interactive: true);
        var exit = await VoronTool.RunAsync(["backup", store, temp.Combine("backup")], console, CancellationToken.None);
        Assert.True(exit == ExitCodes.Ok, error.ToString());
        Assert.Contains("verify", error.ToString()); // the bars' descriptions
        Assert.StartsWith("backup:", output.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("verify (", output.ToString());
    }
}
