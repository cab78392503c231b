namespace Voron.Tool.Tests;

public sealed class CompactCommandTests
{
    [Fact]
    public async Task Compaction_keeps_the_documents_index_results_and_sql_rows()
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        await TestStores.CreateWithDocumentsAndSqlAsync(store);
        var documents = await StoreContents.DocumentsAsync(store);
        var byCustomer = await StoreContents.OrdersByCustomerAsync(store);
        var invoices = StoreContents.ShopRows(store, "SELECT order_id, amount FROM invoices ORDER BY order_id");

        var run = await ToolRun.RunAsync("compact", store);
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Matches(@"(?m)^data file before:\s+[\d,]+ bytes", run.Out);
        Assert.Matches(@"(?m)^data file after:\s+[\d,]+ bytes", run.Out);

        Assert.Equal(documents.Keys, (await StoreContents.DocumentsAsync(store)).Keys);
        Assert.Equal(byCustomer, await StoreContents.OrdersByCustomerAsync(store));
        Assert.Equal(invoices, StoreContents.ShopRows(store, "SELECT order_id, amount FROM invoices ORDER BY order_id"));
    }

    [Fact]
    public async Task A_clean_store_compacts_and_keeps_its_entries()
    {
        using var temp = new TempDirectory();
        TestStores.CreateClean(temp.Path);
        var run = await ToolRun.RunAsync("compact", temp.Path);
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Equal(11, StoreContents.CleanStoreEntries(temp.Path));
    }

    [Fact]
    public async Task A_store_open_elsewhere_is_refused_and_a_missing_one_is_a_usage_error()
    {
        using var temp = new TempDirectory();
        TestStores.CreateClean(temp.Path);
        using (StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(temp.Path)))
        {
            var locked = await ToolRun.RunAsync("compact", temp.Path);
            Assert.True(locked.ExitCode == ExitCodes.Failed, locked.ToString());
        }

        Assert.Equal(ExitCodes.Usage, (await ToolRun.RunAsync("compact", temp.Combine("missing"))).ExitCode);
        Assert.False(Directory.Exists(temp.Combine("missing")));
    }
}
