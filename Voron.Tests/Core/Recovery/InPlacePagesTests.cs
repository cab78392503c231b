using Voron.Flushing;
using Voron.Header;

namespace Voron.Tests.Core.Recovery;

/// <summary>
/// New pages written in place (Transactions/InPlacePages.cs, IP1–IP7): a large commit writes the
/// pages it created to the data file and syncs it before its record, which names them by checksum;
/// recovery checks them (R10) and takes a page a later record rewrote from that record.
/// </summary>
public sealed class InPlacePagesTests
{
    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    private static byte[] Value(int seed, int length)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    private static StorageEnvironmentOptions Options(InMemoryFileSystem fs, long threshold = Constants.PageSize)
    {
        var options = StoreFactory.Options(fs);
        options.InPlaceNewPagesThreshold = threshold;
        return options;
    }

    /// <summary>The in-data-file entries of the records recovery would replay: (tx, first page, pages).</summary>
    private static List<(long Tx, long First, int Count)> NamedEntries(InMemoryFileSystem fs) =>
        [.. Entries(fs).Where(e => e.Encoding == JournalPageEncoding.InDataFile).Select(e => (e.Tx, e.First, e.Count))];

    /// <summary>Every entry of the records recovery would replay.</summary>
    private static List<(long Tx, long First, int Count, JournalPageEncoding Encoding)> Entries(InMemoryFileSystem fs)
    {
        var layout = new StoreLayout("/store");
        var header = HeaderFile.ReadNewest(fs, layout) ?? throw new InvalidOperationException("no header");
        var found = new List<(long, long, int, JournalPageEncoding)>();
        JournalReader.Recover(fs, layout.JournalDirectory, header.StoreId, new JournalPosition(header.JournalFile, header.JournalOffset),
            header.LastSyncedTxId + 1, record =>
            {
                foreach (var page in record.Pages)
                {
                    found.Add((record.TransactionId, page.PageNumber, page.PageCount, page.Encoding));
                }
            });
        return found;
    }

    /// <summary>One commit: an in-order load of <paramref name="keys"/> keys into "t" and three overflow values into "big".</summary>
    private static Dictionary<string, byte[]> Load(StorageEnvironment env, int keys, int seed)
    {
        var expected = new Dictionary<string, byte[]>();
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (var i = 0; i < keys; i++)
        {
            var value = Value(seed + i, 150);
            tree.Put(B($"key{i:D5}"), value);
            expected[$"t/key{i:D5}"] = value;
        }

        var big = tx.CreateTree("big");
        for (var i = 0; i < 3; i++)
        {
            var value = Value(seed + 10_000 + i, 20_000 + (i * 7_000));
            big.Put(B($"v{i}"), value);
            expected[$"big/v{i}"] = value;
        }

        tx.Commit();
        return expected;
    }

    private static void AssertHolds(StorageEnvironment env, Dictionary<string, byte[]> expected)
    {
        using var read = env.BeginRead();
        foreach (var (path, value) in expected)
        {
            var slash = path.IndexOf('/', StringComparison.Ordinal);
            var tree = read.OpenTree(path[..slash])!;
            Assert.Equal(value, tree.Get(B(path[(slash + 1)..])));
        }
    }

    private static void Scribble(InMemoryFileSystem fs, long page, int sector, byte fill)
    {
        using var data = fs.Open("/store/voron.data", FileOpenMode.OpenExisting);
        data.Write((page * Constants.PageSize) + (sector * 512), Enumerable.Repeat(fill, 512).ToArray());
    }

    [Fact]
    public void Commit_writes_a_large_transactions_new_pages_in_place_and_its_record_names_them()
    {
        var fs = StoreFactory.NewFileSystem();
        Dictionary<string, byte[]> expected;
        using (var env = StorageEnvironment.Open(Options(fs)))
        {
            expected = Load(env, 400, 1);
            Assert.True(env.InPlace.PagesWritten > 0);
            AssertHolds(env, expected); // IP4: read from the data file, not the page table
            env.CloseWithoutFlush();
        }

        var named = NamedEntries(fs);
        Assert.NotEmpty(named);
        using (var env = StorageEnvironment.Open(Options(fs)))
        {
            AssertHolds(env, expected);
            env.CheckIntegrity();
        }
    }

    [Fact]
    public void Pages_written_in_place_have_no_page_table_version()
    {
        var fs = StoreFactory.NewFileSystem();
        using var env = StorageEnvironment.Open(Options(fs));
        Load(env, 400, 2);
        env.CloseWithoutFlush();
        using var reopened = StorageEnvironment.Open(Options(fs));
        var expected = Load(reopened, 300, 3);
        Assert.True(reopened.InPlace.PagesWritten > 0);
        var header = HeaderFile.ReadNewest(fs, new StoreLayout("/store")) ?? throw new InvalidOperationException("no header");
        foreach (var (_, first, _) in NamedEntries(fs).Where(e => e.Tx > header.LastSyncedTxId))
        {
            Assert.Equal(0, reopened.PageTable.VersionCount(first));
        }

        reopened.FlushToDataFile();
        AssertHolds(reopened, expected);
    }

    [Fact]
    public void Commit_below_the_threshold_journals_its_new_pages()
    {
        var fs = StoreFactory.NewFileSystem();
        using var env = StorageEnvironment.Open(StoreFactory.Options(fs)); // the default threshold (IP3)
        Load(env, 400, 4);
        Assert.Equal(0, env.InPlace.PagesWritten);
        env.CloseWithoutFlush();
        Assert.Empty(NamedEntries(fs));
    }

    [Fact]
    public void Store_with_a_journal_archive_journals_every_page()
    {
        var fs = StoreFactory.NewFileSystem();
        var options = Options(fs);
        options.JournalArchiveDirectory = "/archive";
        using var env = StorageEnvironment.Open(options);
        Load(env, 400, 5);
        Assert.Equal(0, env.InPlace.PagesWritten); // IP6
    }

    [Fact]
    public void Store_in_lazy_durability_journals_every_page()
    {
        var fs = StoreFactory.NewFileSystem();
        var options = Options(fs);
        options.Durability = DurabilityMode.Lazy;
        using var env = StorageEnvironment.Open(options);
        Load(env, 400, 6);
        Assert.Equal(0, env.InPlace.PagesWritten); // IP2
    }

    [Theory]
    [InlineData(0)]
    [InlineData(15)]
    public void Recover_reports_a_torn_named_page_as_corruption_naming_the_data_file_and_the_page(int sector)
    {
        var fs = StoreFactory.NewFileSystem();
        using (var env = StorageEnvironment.Open(Options(fs)))
        {
            Load(env, 400, 7);
            env.CloseWithoutFlush();
        }

        var (tx, first, _) = NamedEntries(fs)[0];
        Scribble(fs, first, sector, 0xA5);
        var e = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(Options(fs)));
        Assert.EndsWith("voron.data", e.File, StringComparison.Ordinal);
        Assert.Equal(first * Constants.PageSize, e.Offset);
        Assert.Contains("R10", e.Reason, StringComparison.Ordinal);
        Assert.Contains($"record tx {tx}", e.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Recover_reports_a_named_page_that_is_missing_as_corruption()
    {
        var fs = StoreFactory.NewFileSystem();
        using (var env = StorageEnvironment.Open(Options(fs)))
        {
            Load(env, 400, 8);
            env.CloseWithoutFlush();
        }

        var (_, first, count) = NamedEntries(fs)[^1];
        for (var sector = 0; sector < count * Constants.PageSize / 512; sector++)
        {
            Scribble(fs, first, sector, 0); // the write never reached the disk
        }

        var e = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(Options(fs)));
        Assert.Equal(first * Constants.PageSize, e.Offset);
    }

    /// <summary>
    /// A named leaf is changed by the next commit, and a flush writes that version to the data file
    /// and syncs it, then the process dies before the header says so. Both records are replayed:
    /// the later one defines the page (R10), so the first one's checksum no longer holds there and
    /// must not be checked. Without that rule recovery reported damage that a crash made.
    /// </summary>
    [Fact]
    public void Recover_takes_a_named_page_that_a_later_flushed_record_rewrote_from_that_record()
    {
        var fs = StoreFactory.NewFileSystem();
        var options = Options(fs);
        var failFlush = false;
        options.FlushHook = step =>
        {
            if (failFlush && step == FlushStep.DataSynced)
            {
                throw new IOException("power loss after the data file's sync, before the header");
            }
        };

        Dictionary<string, byte[]> expected;
        using (var env = StorageEnvironment.Open(options))
        {
            expected = Load(env, 400, 9);
            using (var tx = env.BeginWrite())
            {
                var tree = tx.OpenTree("t")!;
                for (var i = 0; i < 400; i += 37)
                {
                    var value = Value(50_000 + i, 150);
                    tree.Put(B($"key{i:D5}"), value);
                    expected[$"t/key{i:D5}"] = value;
                }

                tx.Commit(); // small: its changes to the named leaves are journaled as diffs
            }

            failFlush = true;
            Assert.ThrowsAny<Exception>(() => env.FlushToDataFile());
        }

        Assert.NotEmpty(NamedEntries(fs)); // the header still starts the replay before the named record
        using (var env = StorageEnvironment.Open(Options(fs)))
        {
            AssertHolds(env, expected);
            env.CheckIntegrity();
        }
    }

    /// <summary>
    /// IP1: a run freed and allocated again while the record that named it is still queued for the
    /// flusher is journaled, not written in place — a crash would replay that record and check the
    /// old checksum against the new bytes.
    /// </summary>
    [Fact]
    public void Run_allocated_again_while_the_record_naming_it_is_queued_is_journaled()
    {
        var fs = StoreFactory.NewFileSystem();
        var expected = new Dictionary<string, byte[]>();
        using (var env = StorageEnvironment.Open(Options(fs)))
        {
            using (var tx = env.BeginWrite())
            {
                tx.CreateTree("big").Put(B("a"), Value(1, 20_000));
                tx.Commit();
            }

            var run = NamedEntries(fs).Single(e => e.Count > 1); // the overflow run of "a"; the others are single pages (the trees' roots)
            using (var tx = env.BeginWrite())
            {
                tx.OpenTree("big")!.Delete(B("a"));
                tx.Commit();
            }

            using (var tx = env.BeginWrite())
            {
                var value = Value(2, 20_000);
                tx.OpenTree("big")!.Put(B("b"), value);
                expected["big/b"] = value;
                tx.Commit();
            }

            // The allocator gave the freed run back (A5): the scenario is the one this test names.
            var last = Entries(fs).Where(e => e.Tx == env.LastCommittedTransactionId).ToList();
            bool Overlaps((long Tx, long First, int Count, JournalPageEncoding Encoding) e) => e.First < run.First + run.Count && e.First + e.Count > run.First;
            Assert.Contains(last, e => Overlaps(e) && e.Encoding != JournalPageEncoding.InDataFile);
            Assert.DoesNotContain(last, e => Overlaps(e) && e.Encoding == JournalPageEncoding.InDataFile);
            env.CloseWithoutFlush();
        }

        using (var env = StorageEnvironment.Open(Options(fs)))
        {
            AssertHolds(env, expected);
            env.CheckIntegrity();
        }
    }

    /// <summary>
    /// IP6: replay that cannot reach the data file a record's named pages are in (a point-in-time
    /// restore's, StorageEnvironment.ReplayPage) refuses the record rather than skip the pages.
    /// </summary>
    [Fact]
    public void Replay_outside_recovery_refuses_an_entry_that_names_pages_in_the_data_file()
    {
        var fs = StoreFactory.NewFileSystem();
        using var env = StorageEnvironment.Open(Options(fs));
        Load(env, 400, 10);
        var state = new Voron.Header.EnvironmentState(default, 100, 0);
        var page = new RecoveredPage(5, 1, JournalPageEncoding.InDataFile, new byte[JournalRecord.InDataFileLength]);
        byte[] image = [];
        var e = Assert.Throws<CorruptionException>(() => StorageEnvironment.ReplayPage(env.Pager, page, state, ref image, "/archive/1.journal", 4096, 7));
        Assert.Equal("/archive/1.journal", e.File);
        Assert.Contains("R10: record tx 7 names pages [5, 6)", e.Reason, StringComparison.Ordinal);
    }
}
