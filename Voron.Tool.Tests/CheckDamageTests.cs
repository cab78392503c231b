using System.Text.Json;

namespace Voron.Tool.Tests;

/// <summary>
/// <c>voron check</c> finds every damage Voron.Tests' BitFlipTests and JournalDamageTests plant —
/// reproduced here on disk, on closed stores: flipped bits in data pages, header damage, journal
/// record damage, a truncated data file, a truncated or missing journal file, a damaged SQLite
/// page — exiting 1 and naming the file; and the one damage the engine tolerates by design (a torn
/// last journal record, which a crash mid-write leaves) passes, with that record dropped.
/// </summary>
public sealed class CheckDamageTests(DamageFixture stores) : IClassFixture<DamageFixture>
{
    private static async Task<ToolOutput> AssertDamageFound(string store, string file)
    {
        var run = await ToolRun.RunAsync("check", store);
        Assert.True(run.ExitCode == ExitCodes.Damage, run.ToString());
        Assert.Contains("DAMAGED", run.Out, StringComparison.Ordinal);
        Assert.Contains(file, run.Out, StringComparison.Ordinal);
        Assert.Contains("Damage found.", run.Out, StringComparison.Ordinal);
        Assert.Contains("voron restore", run.Out, StringComparison.Ordinal);
        return run;
    }

    [Fact]
    public async Task A_flipped_bit_in_a_tree_page_is_found_and_the_data_file_named()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);
        var data = Path.Combine(store, "voron.data");
        var at = Assert.Single(DamageStores.Find(data, "key/005"u8));

        DamageStores.Flip(data, at + 2);

        var run = await AssertDamageFound(store, data);
        Assert.Contains($"offset: {at / DamageStores.PageSize * DamageStores.PageSize}", run.Out, StringComparison.Ordinal); // the page's offset

        var json = await ToolRun.RunAsync("check", store, "--json");
        using var parsed = JsonDocument.Parse(json.Out);
        Assert.True(parsed.RootElement.GetProperty("damaged").GetBoolean());
        Assert.Contains(parsed.RootElement.GetProperty("stages").EnumerateArray(), s => s.GetProperty("file").GetString() == data);
    }

    /// <summary>
    /// BitFlipTests' data-file half: a bit flipped in every written page in turn, each in a fresh
    /// copy. A page in use must be reported; a page nothing reads (free, or beyond what is
    /// allocated) may pass, but then the store must read exactly as before.
    /// </summary>
    [Fact]
    public async Task A_flipped_bit_in_every_data_page_is_found_or_harmless()
    {
        var data = Path.Combine(stores.Clean, "voron.data");
        var pages = DamageStores.WrittenPages(data);
        using var baseline = new TempDirectory();
        var expected = (await ToolRun.RunAsync("dump", DamageFixture.CopyOf(stores.Clean, baseline), "--tree", "kv")).Out;
        var found = 0;
        for (var page = 0; page < pages; page++)
        {
            using var scratch = new TempDirectory();
            var store = DamageFixture.CopyOf(stores.Clean, scratch);
            DamageStores.Flip(Path.Combine(store, "voron.data"), ((long)page * DamageStores.PageSize) + 100, 0x01);
            var run = await ToolRun.RunAsync("check", store);
            if (run.ExitCode == ExitCodes.Damage)
            {
                Assert.Contains(Path.Combine(store, "voron.data"), run.Out, StringComparison.Ordinal);
                found++;
                continue;
            }

            Assert.True(run.ExitCode == ExitCodes.Ok, $"page {page}: {run}");
            var dump = await ToolRun.RunAsync("dump", store, "--tree", "kv");
            Assert.True(expected == dump.Out, $"page {page}: the check passed but the store reads differently");
        }

        Assert.True(found >= 2, $"{found} of {pages} flips found: the tree's page and the catalog at least");
    }

    [Fact]
    public async Task Both_header_copies_damaged_are_found_and_named()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Clean, scratch);
        DamageStores.Flip(Path.Combine(store, "headers.one"), 24); // LastSyncedTxId
        DamageStores.Flip(Path.Combine(store, "headers.two"), 24);

        await AssertDamageFound(store, "headers.");
    }

    /// <summary>BitFlipTests' header half: every byte of each header copy flipped in turn (one bit of each): found, or harmless (the other copy is used).</summary>
    [Fact]
    public async Task A_flipped_bit_in_one_header_copy_is_found_or_harmless()
    {
        using var baseline = new TempDirectory();
        var expected = (await ToolRun.RunAsync("dump", DamageFixture.CopyOf(stores.Clean, baseline), "--tree", "kv")).Out;
        foreach (var header in new[] { "headers.one", "headers.two" })
        {
            for (var offset = 0; offset < 128; offset += 4) // the fields; the rest is reserved zeros the checksum covers
            {
                using var scratch = new TempDirectory();
                var store = DamageFixture.CopyOf(stores.Clean, scratch);
                DamageStores.Flip(Path.Combine(store, header), offset, 0x02);
                var run = await ToolRun.RunAsync("check", store);
                if (run.ExitCode == ExitCodes.Damage)
                {
                    Assert.Contains("headers.", run.Out, StringComparison.Ordinal);
                    continue;
                }

                Assert.True(run.ExitCode == ExitCodes.Ok, $"{header} byte {offset}: {run}");
                Assert.True(expected == (await ToolRun.RunAsync("dump", store, "--tree", "kv")).Out, $"{header} byte {offset}: reads differently");
            }
        }
    }

    /// <summary>As JournalDamageTests: rot in a record that is not the last is corruption, never a torn tail.</summary>
    [Fact]
    public async Task A_flipped_bit_in_a_journal_record_is_found_and_the_journal_file_named()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Unflushed, scratch);
        var victim = stores.Records[stores.Records.Count / 2];
        var file = stores.InCopy(store, victim.Path);
        DamageStores.Flip(file, victim.Offset + 1500);

        var run = await AssertDamageFound(store, file);
        Assert.Contains($"offset: {victim.Offset}", run.Out, StringComparison.Ordinal);
    }

    /// <summary>As JournalDamageTests: a flipped bit in the last record is rot, not a torn write.</summary>
    [Fact]
    public async Task A_flipped_bit_in_the_last_journal_record_is_found()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Unflushed, scratch);
        var last = stores.Records[^1];
        var file = stores.InCopy(store, last.Path);
        DamageStores.Flip(file, last.Offset + 2000, 0x01);

        await AssertDamageFound(store, file);
    }

    /// <summary>
    /// The damage the engine tolerates by design: sectors of the last record that read as zeros
    /// are what a crash in the middle of writing it leaves (the journal is zero-filled ahead of
    /// its records), so that record was never acknowledged and recovery drops it. Not damage:
    /// exit 0, and the store holds every transaction but that one.
    /// </summary>
    [Fact]
    public async Task A_torn_last_journal_record_is_dropped_by_design_and_passes()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Unflushed, scratch);
        var last = stores.Records[^1];
        DamageStores.Zero(stores.InCopy(store, last.Path), last.Offset + 512, (int)last.Length - 512);

        var run = await ToolRun.RunAsync("check", store);

        Assert.True(run.ExitCode == ExitCodes.Ok, run.ToString());
        var dump = await ToolRun.RunAsync("dump", store, "--tree", "t", "--prefix", "j");
        Assert.Equal(stores.Records.Count - 1, dump.Out.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
    }

    [Fact]
    public async Task A_truncated_data_file_is_found()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Full, scratch);
        var data = Path.Combine(store, "voron.data");
        DamageStores.Truncate(data, DamageStores.WrittenPages(data) / 2 * DamageStores.PageSize);

        await AssertDamageFound(store, "voron.data");
    }

    [Fact]
    public async Task A_truncated_journal_file_is_found()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Unflushed, scratch);
        var first = stores.Records[0];
        var file = stores.InCopy(store, first.Path);
        Assert.NotEqual(first.Path, stores.Records[^1].Path); // a file the later records do not continue in
        DamageStores.Truncate(file, first.Offset + (first.Length / 2));

        await AssertDamageFound(store, "journal");
    }

    [Fact]
    public async Task A_missing_journal_file_is_found()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Unflushed, scratch);
        var middle = stores.Records.Select(r => r.Path).Distinct().ToList();
        Assert.True(middle.Count >= 2, "the records span journal files");
        File.Delete(stores.InCopy(store, middle[0]));

        await AssertDamageFound(store, "journal");
    }

    /// <summary>A SQLite database's block damaged inside the store: the store's page checksum catches it (and integrity_check cannot read the page): exit 1.</summary>
    [Fact]
    public async Task A_damaged_sqlite_page_is_found()
    {
        using var scratch = new TempDirectory();
        var store = DamageFixture.CopyOf(stores.Full, scratch);
        var data = Path.Combine(store, "voron.data");
        var header = Assert.Single(DamageStores.Find(data, "SQLite format 3\0"u8));
        DamageStores.Flip(data, header + 1000);

        var run = await AssertDamageFound(store, data);
        Assert.True(run.Out.Contains("sqlite shop:", StringComparison.Ordinal), run.ToString());
    }
}
