using System.Text.Json;

namespace Voron.Tool.Tests;

public sealed class ExportImportCommandTests
{
    [Fact]
    public async Task Export_writes_one_document_a_line_with_metadata_and_the_summary_on_standard_error()
    {
        using var temp = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(temp.Path);
        var run = await ToolRun.RunAsync("export", temp.Path);
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        var lines = run.Out.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(TestStores.Orders + TestStores.Customers, lines.Length);
        var ids = new HashSet<string>();
        foreach (var line in lines)
        {
            using var document = JsonDocument.Parse(line);
            var metadata = document.RootElement.GetProperty("@metadata");
            Assert.True(ids.Add(metadata.GetProperty("@id").GetString()!));
            Assert.True(metadata.GetProperty("@collection").GetString() is "Order" or "Customer", line);
        }

        Assert.Contains("orders/199", ids);
        Assert.Contains($"exported {TestStores.Orders + TestStores.Customers} documents", run.Error);
    }

    [Fact]
    public async Task Export_of_one_collection_and_of_an_unknown_one()
    {
        using var temp = new TempDirectory();
        await TestStores.CreateWithDocumentsAndSqlAsync(temp.Path);
        var customers = await ToolRun.RunAsync("export", temp.Path, "--collection", "Customer");
        Assert.True(customers.ExitCode == ExitCodes.Ok, customers.ToString());
        Assert.Equal(TestStores.Customers, customers.Out.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);

        var unknown = await ToolRun.RunAsync("export", temp.Path, "--collection", "Invoices");
        Assert.Equal(ExitCodes.Usage, unknown.ExitCode);
        Assert.Contains("Customer, Order", unknown.Error);
        Assert.Equal("", unknown.Out);
    }

    [Fact]
    public async Task Export_of_a_store_without_documents_is_a_usage_error()
    {
        using var temp = new TempDirectory();
        TestStores.CreateClean(temp.Path);
        var run = await ToolRun.RunAsync("export", temp.Path);
        Assert.Equal(ExitCodes.Usage, run.ExitCode);
        Assert.Contains("no documents", run.Error);
        Assert.Equal(ExitCodes.Usage, (await ToolRun.RunAsync("export", temp.Combine("missing"))).ExitCode);
    }

    [Fact]
    public async Task Export_then_import_into_a_new_store_gives_the_same_documents_and_index_results()
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        await TestStores.CreateWithDocumentsAndSqlAsync(store);
        var file = temp.Combine("all.jsonl");
        var export = await ToolRun.RunAsync("export", store, "--output", file);
        Assert.True(export.ExitCode == ExitCodes.Ok, export.ToString());
        Assert.Equal("", export.Out);

        var imported = temp.Combine("imported"); // does not exist: import creates it
        var run = await ToolRun.RunAsync("import", imported, file);
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Contains($"imported {TestStores.Orders + TestStores.Customers} documents, rejected 0 lines", run.Error);
        Assert.Equal("", run.Out);

        await StoreContents.AssertSameDocumentsAsync(store, imported);
        // Index definitions are not exported: the importing application defines its indexes.
        Assert.Equal(await StoreContents.OrdersByCustomerAsync(store), await StoreContents.OrdersByCustomerAsync(imported, ensureIndex: true));
    }

    [Fact]
    public async Task Import_reads_standard_input()
    {
        using var temp = new TempDirectory();
        var input = """
            {"name":"a","@metadata":{"@id":"things/1","@collection":"Thing"}}
            {"name":"b","@metadata":{"@id":"things/2","@collection":"Thing"}}
            """;
        var run = await ToolRun.RunWithInputAsync(input, "import", temp.Path, "-"); // an empty directory is accepted
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        var documents = await StoreContents.DocumentsAsync(temp.Path);
        Assert.Equal(["things/1", "things/2"], documents.Keys);
        Assert.Equal("b", documents["things/2"].Json!["name"]!.GetValue<string>());
        Assert.Null(documents["things/2"].Json!["@metadata"]);
    }

    [Fact]
    public async Task Rejected_lines_are_reported_with_their_numbers_and_exit_3()
    {
        using var temp = new TempDirectory();
        var file = temp.Combine("mixed.jsonl");
        await File.WriteAllLinesAsync(file,
        [
            """{"n":1,"@metadata":{"@id":"x/1","@collection":"X"}}""",
            """{"n":2,"@metadata":{"@collection":"X"}}""",
            """{"n":3,"@metadata":{"@id":"x/3","@collection":"X"}}""",
            """not json at all""",
            """{"n":5,"@metadata":{"@id":"x/5"}}""",
        ]);
        var run = await ToolRun.RunAsync("import", temp.Combine("store"), file);
        Assert.True(run.ExitCode == ExitCodes.Failed, run.ToString());
        Assert.Contains("imported 2 documents, rejected 3 lines", run.Error);
        Assert.Contains("line 2:", run.Error);
        Assert.Contains("line 4:", run.Error);
        Assert.Contains("line 5:", run.Error);
        Assert.DoesNotContain("line 3:", run.Error);
        Assert.Equal(["x/1", "x/3"], (await StoreContents.DocumentsAsync(temp.Combine("store"))).Keys);
    }

    [Fact]
    public async Task Only_the_first_rejections_are_printed_and_the_rest_counted()
    {
        using var temp = new TempDirectory();
        var file = temp.Combine("bad.jsonl");
        await File.WriteAllLinesAsync(file, Enumerable.Range(1, Commands.ImportCommand.RejectionsShown + 5).Select(i => $$"""{"n":{{i}}}"""));
        var run = await ToolRun.RunAsync("import", temp.Combine("store"), file);
        Assert.Equal(ExitCodes.Failed, run.ExitCode);
        Assert.Contains($"imported 0 documents, rejected {Commands.ImportCommand.RejectionsShown + 5} lines", run.Error);
        Assert.Contains($"line {Commands.ImportCommand.RejectionsShown}:", run.Error);
        Assert.DoesNotContain($"line {Commands.ImportCommand.RejectionsShown + 1}:", run.Error);
        Assert.Contains("... and 5 more rejected lines", run.Error);
    }

    [Fact]
    public async Task Import_of_a_missing_file_or_into_a_directory_that_is_not_a_store_is_a_usage_error()
    {
        using var temp = new TempDirectory();
        var missing = await ToolRun.RunAsync("import", temp.Combine("store"), temp.Combine("missing.jsonl"));
        Assert.Equal(ExitCodes.Usage, missing.ExitCode);
        Assert.False(Directory.Exists(temp.Combine("store"))); // nothing created for a command that could not run

        await File.WriteAllTextAsync(temp.Combine("notes.txt"), "not a store");
        await File.WriteAllTextAsync(temp.Combine("in.jsonl"), "");
        var notAStore = await ToolRun.RunAsync("import", temp.Path, temp.Combine("in.jsonl"));
        Assert.Equal(ExitCodes.Usage, notAStore.ExitCode);
        Assert.Contains("not a Voron store", notAStore.Error);
    }
}
