using System.Text;

namespace Voron.Tool.Tests;

/// <summary>
/// What the tool must not do to a user's files or verdicts: open (and so change) a backup, leave a
/// truncated export where an earlier one was, call its own failures damage, or hide why an import
/// stopped.
/// </summary>
public sealed class SafetyTests
{
    [Theory]
    [InlineData("stat")]
    [InlineData("check")]
    [InlineData("dump")]
    [InlineData("export")]
    [InlineData("compact")]
    [InlineData("import")]
    public async Task A_backup_is_refused_by_every_command_that_opens_a_store_and_left_unchanged(string command)
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        await TestStores.CreateWithDocumentsAndSqlAsync(store);
        var backup = temp.Combine("backup");
        Assert.Equal(ExitCodes.Ok, (await ToolRun.RunAsync("backup", store, backup)).ExitCode);
        var before = Snapshot(backup);
        var lines = temp.Combine("one.jsonl");
        await File.WriteAllTextAsync(lines, """{"a":1,"@metadata":{"@id":"x/1","@collection":"X"}}""" + "\n");
        string[] args = command == "import" ? [command, backup, lines] : [command, backup];

        var run = await ToolRun.RunAsync(args);

        Assert.True(run.ExitCode == ExitCodes.Usage, run.ToString());
        Assert.Contains("is a backup", run.Error, StringComparison.Ordinal);
        Assert.Contains("voron restore", run.Error, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(backup));
        var info = await ToolRun.RunAsync("info", backup); // info reads it without changing it
        Assert.True(info.ExitCode == ExitCodes.Ok, info.ToString());
        Assert.Equal(before, Snapshot(backup));
    }

    [Fact]
    public async Task An_export_to_a_file_replaces_it_only_when_complete_and_leaves_no_partial_file()
    {
        using var temp = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(temp.Path);
        var file = temp.Combine("out.jsonl");
        await File.WriteAllTextAsync(file, "an earlier export\n");

        var failed = await ToolRun.RunAsync("export", temp.Path, "--collection", "Nope", "--output", file);
        Assert.Equal(ExitCodes.Usage, failed.ExitCode);
        Assert.Equal("an earlier export\n", await File.ReadAllTextAsync(file));

        var done = await ToolRun.RunAsync("export", temp.Path, "--collection", "Customer", "--output", file);
        Assert.True(done.ExitCode == ExitCodes.Ok, done.ToString());
        Assert.Equal(TestStores.Customers, (await File.ReadAllLinesAsync(file)).Length);
        Assert.False(File.Exists(file + ".partial"));
    }

    [Fact]
    public async Task A_collection_name_the_store_cannot_hold_is_a_usage_error()
    {
        using var temp = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(temp.Path);
        var run = await ToolRun.RunAsync("export", temp.Path, "--collection", "");
        Assert.True(run.ExitCode == ExitCodes.Usage, run.ToString());
    }

    [Fact]
    public async Task An_import_the_store_refuses_midway_says_it_stopped_and_that_earlier_batches_are_stored()
    {
        using var temp = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(temp.Path);
        var file = temp.Combine("conflict.jsonl");
        // customers/1 is stored in Customer: the same id in another collection is refused by the store, not by the line's shape.
        await File.WriteAllTextAsync(file, """{"x":1,"@metadata":{"@id":"customers/1","@collection":"Order"}}""" + "\n", Encoding.UTF8);

        var run = await ToolRun.RunAsync("import", temp.Path, file);

        Assert.True(run.ExitCode == ExitCodes.Failed, run.ToString());
        Assert.Contains("The import stopped", run.Error, StringComparison.Ordinal);
        Assert.Contains("customers/1", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public void Only_what_reveals_damage_counts_as_damage()
    {
        Assert.True(StoreAccess.IsViolation(new CorruptionException("f", 0, "bad")));
        Assert.True(StoreAccess.IsViolation(new InvalidDataException("bad")));
        Assert.True(StoreAccess.IsViolation(new InvalidOperationException("Integrity: page 3 is owned twice")));
        Assert.False(StoreAccess.IsViolation(new ObjectDisposedException("store")));
        Assert.False(StoreAccess.IsViolation(new IOException("disk")));
        Assert.False(StoreAccess.IsViolation(new ArgumentException("a bug")));
        Assert.Equal(CheckStage.Failed, CheckStage.FromFailure("sqlite shop", new TimeoutException("busy")).Status);
    }

    [Fact]
    public async Task A_prefix_in_capitals_0X_is_text_as_dump_shows_it()
    {
        using var temp = new TempDirectory();
        using (var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(temp.Path)))
        using (var write = environment.BeginWrite())
        {
            var tree = write.CreateTree("t");
            tree.Put("0Xab"u8, "text key"u8);
            tree.Put(new byte[] { 0xAB }, "byte key"u8);
            write.Commit();
        }

        var run = await ToolRun.RunAsync("dump", temp.Path, "--tree", "t", "--prefix", "0Xab");

        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Equal(["0Xab\ttext key"], run.Out.Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    private static Dictionary<string, string> Snapshot(string directory) =>
        Directory.GetFiles(directory, "*", SearchOption.AllDirectories)
            .ToDictionary(f => Path.GetRelativePath(directory, f), f => Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(f))));
}
