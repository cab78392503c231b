using System.Text.Json;

namespace Voron.Tool.Tests;

public sealed class SqlCommandTests
{
    [Fact]
    public async Task A_query_on_a_table_prints_a_table_with_its_columns_and_rows()
    {
        using var temp = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(temp.Path);
        var run = await ToolRun.RunAsync("sql", temp.Path, "shop", "SELECT order_id, amount FROM invoices ORDER BY amount DESC LIMIT 2");
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Contains("order_id", run.Out);
        Assert.Contains("amount", run.Out);
        Assert.Contains("orders/199", run.Out);
        Assert.Contains("298.5", run.Out);
        Assert.Contains("orders/198", run.Out);
        Assert.DoesNotContain("orders/197", run.Out);
        Assert.Contains("2 rows", run.Out);
    }

    [Fact]
    public async Task A_voron_docs_table_is_queried_through_the_documents()
    {
        using var temp = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(temp.Path);
        var run = await ToolRun.RunAsync("sql", temp.Path, "shop", "SELECT count(*) AS n, min(total) AS low FROM orders WHERE customer = 'customers/3'");
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Matches(@"│\s*10\s*│\s*4\.5\s*│", run.Out);
    }

    [Fact]
    public async Task Json_output_parses_and_null_and_blobs_are_shown()
    {
        using var temp = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(temp.Path);
        var run = await ToolRun.RunAsync("sql", temp.Path, "shop", "SELECT order_id, amount, NULL AS absent, x'00ff' AS bytes FROM invoices ORDER BY order_id LIMIT 3", "--json");
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        using var json = JsonDocument.Parse(run.Out);
        Assert.Equal(3, json.RootElement.GetArrayLength());
        var first = json.RootElement[0];
        Assert.Equal("orders/0", first.GetProperty("order_id").GetString());
        Assert.Equal(0.0, first.GetProperty("amount").GetDouble());
        Assert.Equal(JsonValueKind.Null, first.GetProperty("absent").ValueKind);
        Assert.Equal("00FF", first.GetProperty("bytes").GetString());

        var table = await ToolRun.RunAsync("sql", temp.Path, "shop", "SELECT NULL AS absent, x'00ff' AS bytes");
        Assert.Contains("NULL", table.Out);
        Assert.Contains("x'00FF'", table.Out);
    }

    [Fact]
    public async Task Statements_are_read_from_standard_input_one_per_line()
    {
        using var temp = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(temp.Path);
        var input = """
            INSERT INTO invoices VALUES ('extra/1', 1000.25)

            SELECT amount FROM invoices WHERE order_id = 'extra/1'
            SELECT count(*) AS n FROM invoices
            """;
        var run = await ToolRun.RunWithInputAsync(input, "sql", temp.Path, "shop", "--json");
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        var lines = run.Out.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(3, lines.Length);
        Assert.Equal(1, JsonDocument.Parse(lines[0]).RootElement.GetProperty("changes").GetInt32());
        Assert.Equal(1000.25, JsonDocument.Parse(lines[1]).RootElement[0].GetProperty("amount").GetDouble());
        Assert.Equal(TestStores.Orders + 1, JsonDocument.Parse(lines[2]).RootElement[0].GetProperty("n").GetInt32());
        Assert.Contains("extra/1|1000.25", StoreContents.ShopRows(temp.Path, "SELECT order_id, amount FROM invoices")); // committed
    }

    [Fact]
    public async Task An_sql_error_stops_the_input_and_exits_3_with_sqlites_message()
    {
        using var temp = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(temp.Path);
        var input = "SELECT 1 AS one\nSELECT * FROM no_such_table\nINSERT INTO invoices VALUES ('never', 1)\n";
        var run = await ToolRun.RunWithInputAsync(input, "sql", temp.Path, "shop");
        Assert.Equal(ExitCodes.Failed, run.ExitCode);
        Assert.Contains("one", run.Out);
        Assert.Contains("no such table: no_such_table", run.Error);
        Assert.Contains("line 2", run.Error);
        Assert.Empty(StoreContents.ShopRows(temp.Path, "SELECT * FROM invoices WHERE order_id = 'never'"));

        var single = await ToolRun.RunAsync("sql", temp.Path, "shop", "SELEC 1");
        Assert.Equal(ExitCodes.Failed, single.ExitCode);
        Assert.Contains("syntax error", single.Error);
    }

    [Fact]
    public async Task A_missing_database_is_refused_unless_create()
    {
        using var temp = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(temp.Path);
        var missing = await ToolRun.RunAsync("sql", temp.Path, "shopp", "SELECT 1");
        Assert.Equal(ExitCodes.Usage, missing.ExitCode);
        Assert.Contains("Its databases: shop.", missing.Error);
        Assert.Contains("--create", missing.Error);

        var created = await ToolRun.RunWithInputAsync("CREATE TABLE t(x)\nINSERT INTO t VALUES (1), (2)\n", "sql", temp.Path, "fresh", "--create");
        Assert.True(created.ExitCode == ExitCodes.Ok, created.ToString());
        Assert.Equal(["0 rows changed", "2 rows changed"], created.Out.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
        var read = await ToolRun.RunAsync("sql", temp.Path, "fresh", "SELECT sum(x) AS total FROM t", "--json");
        Assert.True(read.ExitCode == ExitCodes.Ok, read.ToString());
        Assert.Equal(3, JsonDocument.Parse(read.Out).RootElement[0].GetProperty("total").GetInt32());
    }

    [Fact]
    public async Task A_clean_store_runs_sql_on_a_new_database_and_a_missing_store_is_a_usage_error()
    {
        using var temp = new TempDirectory();
        TestStores.CreateClean(temp.Path);
        var run = await ToolRun.RunAsync("sql", temp.Path, "scratch", "SELECT 1 + 1 AS two", "--create");
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Matches(@"│\s*2\s*│", run.Out);
        var none = await ToolRun.RunAsync("sql", temp.Path, "scratch", "SELECT 1");
        Assert.Equal(ExitCodes.Usage, none.ExitCode); // a read created nothing
        Assert.Contains("Its databases: none.", none.Error);
        Assert.Equal(ExitCodes.Usage, (await ToolRun.RunAsync("sql", temp.Combine("missing"), "shop", "SELECT 1")).ExitCode);
    }
}
