namespace Voron.Tool.Tests;

public sealed class RestoreCommandTests
{
    [Fact]
    public async Task Backup_then_restore_gives_the_same_documents_index_results_and_sql_rows()
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        await TestStores.CreateWithDocumentsAndSqlAsync(store);
        Assert.Equal(ExitCodes.Ok, (await ToolRun.RunAsync("backup", store, temp.Combine("backup"))).ExitCode);
        var run = await ToolRun.RunAsync("restore", temp.Combine("backup"), temp.Combine("restored"));
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Matches(@"(?m)^restored:\s+.*restored$", run.Out);
        Assert.Matches(@"(?m)^replayed:\s+0$", run.Out);

        await StoreContents.AssertSameDocumentsAsync(store, temp.Combine("restored"));
        Assert.Equal(await StoreContents.OrdersByCustomerAsync(store), await StoreContents.OrdersByCustomerAsync(temp.Combine("restored")));
        const string sql = "SELECT order_id, amount FROM invoices ORDER BY order_id";
        var rows = StoreContents.ShopRows(store, sql);
        Assert.Equal(TestStores.Orders, rows.Count);
        Assert.Equal(rows, StoreContents.ShopRows(temp.Combine("restored"), sql));
        Assert.Equal(StoreContents.ShopRows(store, "SELECT id, customer FROM orders ORDER BY id"),
            StoreContents.ShopRows(temp.Combine("restored"), "SELECT id, customer FROM orders ORDER BY id"));
    }

    [Fact]
    public async Task A_journal_archive_is_replayed_up_to_the_transaction_asked()
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        var archive = temp.Combine("archive");
        var options = StorageEnvironmentOptions.ForDirectory(store);
        options.JournalArchiveDirectory = archive;
        options.JournalFileSize = 64 << 10; // small journal files, so the ones holding the target are released and archived
        long target;
        using (var environment = StorageEnvironment.Open(options))
        {
            Put(environment, "before");
            await environment.BackupAsync(temp.Combine("backup"));
            target = Put(environment, "wanted");
            Put(environment, "too-late");
            var random = new Random(26);
            for (var i = 0; i < 100; i++)
            {
                var filler = new byte[3000];
                random.NextBytes(filler);
                Put(environment, $"filler/{i}", filler);
            }

            environment.FlushToDataFile(); // releases, so archives, the journal files the data file no longer needs
        }

        var run = await ToolRun.RunAsync("restore", temp.Combine("backup"), temp.Combine("restored"), "--journal-archive", archive, "--to-transaction", target.ToString(System.Globalization.CultureInfo.InvariantCulture));
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Matches($@"(?m)^transaction:\s+{target}$", run.Out);
        using var restored = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(temp.Combine("restored")));
        using var read = restored.BeginRead();
        var tree = read.OpenTree("t")!;
        Assert.NotNull(tree.Get("before"u8));
        Assert.NotNull(tree.Get("wanted"u8));
        Assert.Null(tree.Get("too-late"u8));
    }

    [Fact]
    public async Task A_backup_taken_before_voron_compact_restores_to_the_compaction_and_refuses_past_it_or_before_its_snapshot()
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        var archive = temp.Combine("archive");
        var options = StorageEnvironmentOptions.ForDirectory(store);
        options.JournalArchiveDirectory = archive;
        options.JournalFileSize = 64 << 10;
        long last;
        DateTimeOffset beforeBackup;
        using (var environment = StorageEnvironment.Open(options))
        {
            Put(environment, "before");
            await Task.Delay(20);
            beforeBackup = DateTimeOffset.UtcNow;
            await Task.Delay(20);
            Put(environment, "at-backup");
            await environment.BackupAsync(temp.Combine("backup"));
            var random = new Random(43);
            for (var i = 0; i < 40; i++)
            {
                var filler = new byte[3000];
                random.NextBytes(filler);
                Put(environment, $"filler/{i}", filler);
            }

            last = Put(environment, "last");
        }

        var compact = await ToolRun.RunAsync("compact", store, "--journal-archive", archive);
        Assert.True(compact.ExitCode == ExitCodes.Ok, compact.ToString());
        var lastText = last.ToString(System.Globalization.CultureInfo.InvariantCulture);
        var run = await ToolRun.RunAsync("restore", temp.Combine("backup"), temp.Combine("restored"), "--journal-archive", archive, "--to-transaction", lastText);
        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        Assert.Matches($@"(?m)^transaction:\s+{last}$", run.Out);

        var past = await ToolRun.RunAsync("restore", temp.Combine("backup"), temp.Combine("past"), "--journal-archive", archive, "--to-transaction",
            (last + 1).ToString(System.Globalization.CultureInfo.InvariantCulture));
        Assert.True(past.ExitCode == ExitCodes.Failed, past.ToString());
        Assert.Contains($"compacted after transaction {last}", past.Error, StringComparison.Ordinal);

        var early = await ToolRun.RunAsync("restore", temp.Combine("backup"), temp.Combine("early"), "--journal-archive", archive, "--to-time",
            beforeBackup.UtcDateTime.ToString("O", System.Globalization.CultureInfo.InvariantCulture));
        Assert.True(early.ExitCode == ExitCodes.Usage, early.ToString());
        Assert.Contains("before the backup's snapshot", early.Error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--to-transaction", "5", "--to-time", "2026-11-27T10:15:00Z")] // both bounds
    [InlineData("--to-time", "yesterday-ish")] // not ISO 8601
    [InlineData("--to-transaction", "five")]
    public async Task Bad_bounds_are_usage_errors(params string[] options)
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        TestStores.CreateClean(store);
        Assert.Equal(ExitCodes.Ok, (await ToolRun.RunAsync("backup", store, temp.Combine("backup"))).ExitCode);
        Directory.CreateDirectory(temp.Combine("archive"));
        var run = await ToolRun.RunAsync(["restore", temp.Combine("backup"), temp.Combine("restored"), "--journal-archive", temp.Combine("archive"), .. options]);
        Assert.True(run.ExitCode == ExitCodes.Usage, run.ToString());
        Assert.False(File.Exists(Path.Combine(temp.Combine("restored"), "voron.data")));
    }

    [Fact]
    public void To_time_parses_iso_8601_in_the_invariant_culture()
    {
        Assert.Equal(new DateTimeOffset(2026, 11, 27, 10, 15, 0, TimeSpan.Zero), Commands.RestoreCommand.ParseTime("2026-11-27T10:15:00Z"));
        Assert.Equal(new DateTimeOffset(2026, 11, 27, 10, 15, 0, TimeSpan.Zero), Commands.RestoreCommand.ParseTime("2026-11-27T11:15:00+01:00"));
        Assert.Equal(new DateTimeOffset(2026, 11, 27, 10, 15, 0, TimeSpan.Zero), Commands.RestoreCommand.ParseTime("2026-11-27T10:15:00")); // no offset: UTC
        Assert.Equal(ExitCodes.Usage, Assert.Throws<ToolException>(() => Commands.RestoreCommand.ParseTime("27/11/2026 10h15")).ExitCode);
    }

    [Fact]
    public async Task A_directory_that_is_not_a_backup_is_a_usage_error()
    {
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        TestStores.CreateClean(store);
        var run = await ToolRun.RunAsync("restore", store, temp.Combine("restored"));
        Assert.Equal(ExitCodes.Usage, run.ExitCode);
        Assert.Contains("not a backup", run.Error);
        Assert.Equal(ExitCodes.Usage, (await ToolRun.RunAsync("restore", temp.Combine("missing"), temp.Combine("restored"))).ExitCode);
    }

    private static long Put(StorageEnvironment environment, string key, byte[]? value = null)
    {
        using var write = environment.BeginWrite();
        (write.OpenTree("t") ?? write.CreateTree("t")).Put(System.Text.Encoding.UTF8.GetBytes(key), value ?? "v"u8.ToArray());
        write.Commit();
        return write.Id;
    }
}
