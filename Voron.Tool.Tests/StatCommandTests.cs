using System.Text.Json;

namespace Voron.Tool.Tests;

/// <summary><c>voron stat</c>: trees, free space, collections, indexes and SQLite databases, as tables and as JSON.</summary>
public sealed class StatCommandTests(DamageFixture stores) : IClassFixture<DamageFixture>
{
    [Fact]
    public async Task A_clean_store_shows_its_trees_and_free_space()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);

        var table = await ToolRun.RunAsync("stat", store);
        Assert.True(table.ExitCode == ExitCodes.Ok, table.ToString());
        Assert.Contains("kv", table.Out, StringComparison.Ordinal);
        Assert.Contains("Free-space sections by fill", table.Out, StringComparison.Ordinal);
        Assert.DoesNotContain("Collection", table.Out, StringComparison.Ordinal); // no documents, no document tables

        var json = await ToolRun.RunAsync("stat", store, "--json");
        Assert.True(json.ExitCode == ExitCodes.Ok, json.ToString());
        using var parsed = JsonDocument.Parse(json.Out);
        var root = parsed.RootElement;
        var kv = root.GetProperty("trees").EnumerateArray().Single(t => t.GetProperty("name").GetString() == "kv");
        Assert.Equal(11, kv.GetProperty("entries").GetInt64());
        Assert.True(kv.GetProperty("leafPages").GetInt64() >= 1);
        var sections = root.GetProperty("sections").EnumerateArray().ToList();
        Assert.NotEmpty(sections);
        Assert.Equal(root.GetProperty("freePages").GetInt64(), sections.Sum(s => s.GetProperty("freePages").GetInt64()));
        Assert.Empty(root.GetProperty("collections").EnumerateArray());
        Assert.Empty(root.GetProperty("pageFiles").EnumerateArray());
    }

    [Fact]
    public async Task A_store_with_documents_and_sql_shows_collections_indexes_and_databases()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Full, scratch);

        var json = await ToolRun.RunAsync("stat", store, "--json");
        Assert.True(json.ExitCode == ExitCodes.Ok, json.ToString());
        using var parsed = JsonDocument.Parse(json.Out);
        var root = parsed.RootElement;
        var collections = root.GetProperty("collections").EnumerateArray().ToDictionary(c => c.GetProperty("name").GetString()!, c => c.GetProperty("documents").GetInt64());
        Assert.Equal(TestStores.Orders, collections["Order"]);
        Assert.Equal(TestStores.Customers, collections["Customer"]);
        var index = root.GetProperty("indexes").EnumerateArray().Single();
        Assert.Equal(("Order", "ByCustomer", (long)TestStores.Orders),
            (index.GetProperty("collection").GetString(), index.GetProperty("name").GetString(), index.GetProperty("entries").GetInt64()));
        var shop = root.GetProperty("pageFiles").EnumerateArray().Single(f => f.GetProperty("name").GetString() == "shop");
        Assert.True(shop.GetProperty("sqliteDatabase").GetBoolean());
        var pageSize = shop.GetProperty("pageSize").GetInt64();
        Assert.Equal(8192, pageSize); // read from the database header: the VFS makes SQLite's pages its 8 KiB blocks
        Assert.Equal(shop.GetProperty("bytes").GetInt64() / pageSize, shop.GetProperty("pages").GetInt64());
        Assert.True(shop.GetProperty("pages").GetInt64() >= 2, "the schema page and the invoices table");

        var table = await ToolRun.RunAsync("stat", store);
        Assert.True(table.ExitCode == ExitCodes.Ok, table.ToString());
        Assert.Contains("Order", table.Out, StringComparison.Ordinal);
        Assert.Contains("ByCustomer", table.Out, StringComparison.Ordinal);
        Assert.Contains("SQLite database", table.Out, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(new byte[] { 0x53, 0x51, 0x4C, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6F, 0x72, 0x6D, 0x61, 0x74, 0x20, 0x33, 0, 0x10, 0x00 }, 4096)]
    [InlineData(new byte[] { 0x53, 0x51, 0x4C, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6F, 0x72, 0x6D, 0x61, 0x74, 0x20, 0x33, 0, 0x00, 0x01 }, 65536)]
    [InlineData(new byte[] { 0x53, 0x51, 0x4C, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6F, 0x72, 0x6D, 0x61, 0x74, 0x20, 0x33, 0, 0x10, 0x01 }, 0)] // not a power of two
    [InlineData(new byte[] { 0x53, 0x51, 0x4C, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6F, 0x72, 0x6D, 0x61, 0x74, 0x20, 0x34, 0, 0x10, 0x00 }, 0)] // not the header
    public void The_sqlite_page_size_is_read_from_the_header_and_checked(byte[] header, int pageSize) =>
        Assert.Equal(pageSize, InspectSqlite.PageSizeOf(header));
}
