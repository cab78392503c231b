using System.Text.Json;

namespace Voron.Tool.Tests;

/// <summary><c>voron dump</c>: keys and values in key order, text or hex, prefixes, limits, JSON, the tree list.</summary>
public sealed class DumpCommandTests(DamageFixture stores) : IClassFixture<DamageFixture>
{
    [Fact]
    public async Task Dumps_a_tree_in_key_order_with_hex_for_bytes_that_are_not_text()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);

        var run = await ToolRun.RunAsync("dump", store, "--tree", "kv");

        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        var lines = run.Out.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(11, lines.Length);
        Assert.Equal("binary\t0x000102FF", lines[0]); // "binary" < "key/..." bytewise; its value has a NUL
        Assert.Equal("key/000\tvalue 0", lines[1]);
        Assert.Equal("key/009\tvalue 9", lines[10]);
        Assert.Equal("", run.Error);
    }

    [Fact]
    public async Task A_prefix_and_a_limit_select_entries()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);

        var run = await ToolRun.RunAsync("dump", store, "--tree", "kv", "--prefix", "key/00", "--limit", "3");
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Equal(["key/000\tvalue 0", "key/001\tvalue 1", "key/002\tvalue 2"], run.Out.Split('\n', StringSplitOptions.RemoveEmptyEntries));

        var hex = await ToolRun.RunAsync("dump", store, "--tree", "kv", "--prefix", "0x6269"); // "bi"
        Assert.Equal(["binary\t0x000102FF"], hex.Out.Split('\n', StringSplitOptions.RemoveEmptyEntries));

        var none = await ToolRun.RunAsync("dump", store, "--tree", "kv", "--prefix", "zzz");
        Assert.Equal((ExitCodes.Ok, ""), (none.ExitCode, none.Out));
    }

    [Fact]
    public async Task Json_parses_and_holds_every_entry()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Full, scratch);

        var run = await ToolRun.RunAsync("dump", store, "--tree", "kv", "--json");
        Assert.Equal(ExitCodes.Usage, run.ExitCode); // the documents store has no "kv" tree

        var list = await ToolRun.RunAsync("dump", store, "--json");
        Assert.True(list.ExitCode == ExitCodes.Ok, list.ToString());
        using var trees = JsonDocument.Parse(list.Out);
        var docs = trees.RootElement.GetProperty("trees").EnumerateArray().Single(t => t.GetProperty("name").GetString() == "@docs");
        Assert.Equal(TestStores.Orders + TestStores.Customers, docs.GetProperty("entries").GetInt64());

        var dump = await ToolRun.RunAsync("dump", store, "--tree", "@docs", "--json", "--prefix", "orders/1");
        Assert.True(dump.ExitCode == ExitCodes.Ok, dump.ToString());
        using var entries = JsonDocument.Parse(dump.Out);
        var keys = entries.RootElement.GetProperty("entries").EnumerateArray().Select(e => e.GetProperty("key").GetString()!).ToList();
        Assert.Equal(111, keys.Count); // orders/1, orders/10..19, orders/100..199
        Assert.All(keys, key => Assert.StartsWith("orders/1", key, StringComparison.Ordinal));
        Assert.Equal(keys.Order(StringComparer.Ordinal), keys);
    }

    [Fact]
    public async Task Without_a_tree_it_lists_the_trees_and_a_missing_tree_is_a_usage_error_naming_them()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);

        var list = await ToolRun.RunAsync("dump", store);
        Assert.True(list.ExitCode == ExitCodes.Ok, list.ToString());
        Assert.Contains("kv", list.Out, StringComparison.Ordinal);
        Assert.Contains("11", list.Out, StringComparison.Ordinal);

        var missing = await ToolRun.RunAsync("dump", store, "--tree", "nope");
        Assert.Equal(ExitCodes.Usage, missing.ExitCode);
        Assert.Contains("No tree 'nope'", missing.Error, StringComparison.Ordinal);
        Assert.Contains("kv", missing.Error, StringComparison.Ordinal);
        Assert.Equal("", missing.Out);
    }

    [Theory]
    [InlineData(new byte[] { 0x61, 0x62 }, "ab")]
    [InlineData(new byte[] { 0xC3, 0xBC }, "ü")]
    [InlineData(new byte[] { 0x61, 0x09 }, "0x6109")] // a tab is a control character
    [InlineData(new byte[] { 0xC3 }, "0xC3")] // not UTF-8
    [InlineData(new byte[] { 0x30, 0x78, 0x31 }, "0x307831")] // the text "0x1" would read as a hex byte
    [InlineData(new byte[0], "")]
    public void Bytes_are_shown_as_text_or_hex(byte[] bytes, string shown) => Assert.Equal(shown, DumpFormat.Show(bytes));

    [Fact]
    public async Task A_prefix_of_0x_and_no_hex_is_a_usage_error()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);
        var run = await ToolRun.RunAsync("dump", store, "--tree", "kv", "--prefix", "0xZZ");
        Assert.Equal(ExitCodes.Usage, run.ExitCode);
        Assert.Contains("not hex", run.Error, StringComparison.Ordinal);
    }
}
