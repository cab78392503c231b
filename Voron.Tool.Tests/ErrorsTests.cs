namespace Voron.Tool.Tests;

/// <summary>
/// Errors a person understands, with their exit codes: a store held by another process (named by
/// its pid), a missing directory, a directory that is not a store, a newer format, usage errors.
/// </summary>
public sealed class ErrorsTests(DamageFixture stores) : IClassFixture<DamageFixture>
{
    public static TheoryData<string> Commands => ["info", "stat", "check", "dump"];

    [Theory]
    [MemberData(nameof(Commands))]
    public async Task A_missing_directory_is_a_usage_error(string command)
    {
        using var scratch = new TempDirectory();
        var run = await ToolRun.RunAsync(command, scratch.Combine("no-such-store"));
        Assert.True(run.ExitCode == ExitCodes.Usage, run.ToString());
        Assert.Contains("does not exist", run.Error, StringComparison.Ordinal);
        Assert.False(Directory.Exists(scratch.Combine("no-such-store")), "nothing is created");
    }

    [Theory]
    [MemberData(nameof(Commands))]
    public async Task A_directory_that_is_not_a_store_is_a_usage_error(string command)
    {
        using var scratch = new TempDirectory();
        File.WriteAllText(scratch.Combine("notes.txt"), "not a store");
        var run = await ToolRun.RunAsync(command, scratch.Path);
        Assert.True(run.ExitCode == ExitCodes.Usage, run.ToString());
        Assert.Contains("is not a Voron store", run.Error, StringComparison.Ordinal);
        Assert.False(File.Exists(scratch.Combine("voron.data")), "nothing is created");
    }

    [Theory]
    [MemberData(nameof(Commands))]
    public async Task A_store_of_a_newer_format_is_refused_naming_the_newer_voron(string command)
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);
        DamageStores.PatchFormatVersion(store, 5); // 4 is a sealed store's header

        var run = await ToolRun.RunAsync(command, store);

        Assert.True(run.ExitCode == ExitCodes.Failed, run.ToString());
        Assert.Contains("newer Voron", run.Error, StringComparison.Ordinal);
        Assert.Equal("", run.Out);
    }

    [Fact]
    public async Task A_store_held_by_another_process_is_refused_naming_its_pid_and_info_still_reads_it()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);
        using (var held = DamageProcesses.Hold(store))
        {
            foreach (var command in new[] { "stat", "check", "dump" })
            {
                var run = await ToolRun.RunAsync(command, store);
                Assert.True(run.ExitCode == ExitCodes.Failed, $"{command}: {run}");
                Assert.Contains($"process {held.ProcessId}", run.Error, StringComparison.Ordinal);
                Assert.Contains("open elsewhere", run.Error, StringComparison.Ordinal);
            }

            var info = await ToolRun.RunAsync("info", store);
            Assert.True(info.ExitCode == ExitCodes.Ok, info.ToString());
            Assert.Contains($"held by process {held.ProcessId}", info.Out, StringComparison.Ordinal);
        }

        var after = await ToolRun.RunAsync("check", store); // the holder closed it: the store is free and whole
        Assert.True(after.ExitCode == ExitCodes.Ok, after.ToString());
    }

    [Theory]
    [InlineData("info")] // no store argument
    [InlineData("check", "a", "b")] // one too many
    [InlineData("stat", "--no-such-option", "x")]
    [InlineData("dump", "x", "--limit", "-1")]
    [InlineData("dump", "x", "--limit", "many")]
    public async Task Bad_arguments_are_usage_errors(params string[] args)
    {
        var run = await ToolRun.RunAsync(args);
        Assert.True(run.ExitCode == ExitCodes.Usage, run.ToString());
        Assert.NotEqual("", run.Error);
    }

    [Fact]
    public void Damage_is_described_with_its_file_offset_and_what_to_do()
    {
        var (code, message) = VoronTool.Describe(new CorruptionException("/s/voron.data", 8192, "page 1 fails its checksum"));
        Assert.Equal(ExitCodes.Damage, code);
        Assert.Contains("/s/voron.data", message, StringComparison.Ordinal);
        Assert.Contains("8192", message, StringComparison.Ordinal);
        Assert.Contains("voron restore", message, StringComparison.Ordinal);
    }
}
