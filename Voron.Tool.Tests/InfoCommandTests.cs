using System.Text.Json;

namespace Voron.Tool.Tests;

/// <summary><c>voron info</c>: what the files say, without opening the store.</summary>
public sealed class InfoCommandTests(DamageFixture stores) : IClassFixture<DamageFixture>
{
    [Fact]
    public async Task A_clean_store_shows_its_format_files_and_a_clean_close()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);

        var table = await ToolRun.RunAsync("info", store);
        Assert.True(table.ExitCode == ExitCodes.Ok, table.ToString());
        Assert.Contains("Format version", table.Out, StringComparison.Ordinal);
        Assert.Contains("voron.data", table.Out, StringComparison.Ordinal);
        Assert.Contains("Problems: none", table.Out, StringComparison.Ordinal);

        var json = await ToolRun.RunAsync("info", store, "--json");
        Assert.True(json.ExitCode == ExitCodes.Ok, json.ToString());
        using var parsed = JsonDocument.Parse(json.Out);
        var root = parsed.RootElement;
        Assert.Equal(3, root.GetProperty("formatVersion").GetInt32());
        Assert.Equal(8192, root.GetProperty("pageSize").GetInt32());
        Assert.True(root.GetProperty("closedCleanly").GetBoolean());
        Assert.Equal(0, root.GetProperty("journalTransactions").GetInt64());
        Assert.Equal(root.GetProperty("lastSyncedTransactionId").GetInt64(), root.GetProperty("lastTransactionId").GetInt64());
        var data = root.GetProperty("files").EnumerateArray().Single(f => f.GetProperty("name").GetString() == "voron.data");
        Assert.Equal(new FileInfo(Path.Combine(store, "voron.data")).Length, data.GetProperty("bytes").GetInt64());
        Assert.False(root.GetProperty("lock").GetProperty("isHeld").GetBoolean());
        Assert.Empty(root.GetProperty("problems").EnumerateArray());
    }

    [Fact]
    public async Task A_store_closed_without_a_flush_shows_the_transactions_to_replay_and_info_changes_nothing()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Unflushed, scratch);
        var before = Directory.EnumerateFiles(store, "*", SearchOption.AllDirectories).Order().Select(File.ReadAllBytes).ToList();

        var json = await ToolRun.RunAsync("info", store, "--json");
        Assert.True(json.ExitCode == ExitCodes.Ok, json.ToString());
        using var parsed = JsonDocument.Parse(json.Out);
        var root = parsed.RootElement;
        Assert.Equal(stores.Records.Count, root.GetProperty("journalTransactions").GetInt64());
        Assert.Equal(root.GetProperty("lastSyncedTransactionId").GetInt64() + stores.Records.Count, root.GetProperty("lastTransactionId").GetInt64());
        Assert.False(root.GetProperty("closedCleanly").GetBoolean());
        Assert.True(root.GetProperty("journalFiles").GetArrayLength() >= 2);

        var after = Directory.EnumerateFiles(store, "*", SearchOption.AllDirectories).Order().Select(File.ReadAllBytes).ToList();
        Assert.Equal(before.Count, after.Count);
        Assert.All(before.Zip(after), pair => Assert.True(pair.First.AsSpan().SequenceEqual(pair.Second)));
    }

    [Fact]
    public async Task A_store_with_documents_lists_its_files()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Full, scratch);
        var run = await ToolRun.RunAsync("info", store);
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Contains("headers.one", run.Out, StringComparison.Ordinal);
        Assert.Contains("Closed cleanly", run.Out, StringComparison.Ordinal);
    }

    /// <summary>One damaged header copy: the other is used, so info reads the store (exit 0) and lists the damaged copy among its problems.</summary>
    [Fact]
    public async Task One_damaged_header_copy_is_listed_as_a_problem()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);
        DamageStores.Flip(Path.Combine(store, "headers.one"), 30);

        var run = await ToolRun.RunAsync("info", store, "--json");

        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        using var parsed = JsonDocument.Parse(run.Out);
        Assert.Contains(parsed.RootElement.GetProperty("problems").EnumerateArray(), p => p.GetString()!.Contains("headers.one", StringComparison.Ordinal));
        Assert.Contains("voron check", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Both_header_copies_damaged_is_damage()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);
        DamageStores.Flip(Path.Combine(store, "headers.one"), 30);
        DamageStores.Flip(Path.Combine(store, "headers.two"), 30);

        var run = await ToolRun.RunAsync("info", store);
        Assert.True(run.ExitCode == ExitCodes.Damage, run.ToString());
        Assert.Contains("headers.", run.Error, StringComparison.Ordinal);
        Assert.Contains("voron restore", run.Error, StringComparison.Ordinal);
    }
}
