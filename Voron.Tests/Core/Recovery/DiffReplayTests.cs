using Voron.Testing.Journal;

namespace Voron.Tests.Core.Recovery;

/// <summary>
/// Recovery applies page diffs in journal order on top of whatever the data file holds for the
/// page: the old version, the newest, or a sector-by-sector mix of versions (a flush torn by a
/// crash). All three must give the newest version; garbage is caught by the page checksum.
/// </summary>
public sealed class DiffReplayTests(ITestOutputHelper output)
{
    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    private sealed record Scenario(InMemoryFileSystem Fs, long LeafPage, byte[] OldImage, byte[] MiddleImage, byte[] NewImage, Dictionary<string, string> Expected);

    /// <summary>
    /// Tx 1 fills a one-leaf tree and is flushed to the data file (the old image); tx 2 and tx 3
    /// change a few values in place (journaled as diffs against the previous version); then the
    /// process "dies" before flushing them.
    /// </summary>
    private static Scenario Build(bool diffs, bool compression)
    {
        var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs);
        options.JournalPageDiffs = diffs;
        options.JournalCompression = compression;
        var env = StorageEnvironment.Open(options);
        var expected = new Dictionary<string, string>();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (var i = 0; i < 40; i++)
            {
                tree.Put(B($"key{i:D2}"), B($"value-{i:D2}-aaaaaaaa"));
                expected[$"key{i:D2}"] = $"value-{i:D2}-aaaaaaaa";
            }

            tx.Commit();
        }

        env.FlushToDataFile();
        long leaf;
        byte[] Image()
        {
            using var read = env.BeginRead();
            return read.Low.GetPage(leaf).ToArray();
        }

        using (var read = env.BeginRead())
        {
            leaf = read.OpenTree("t")!.Inner.State.RootPage;
        }

        var oldImage = Image();
        var middle = Array.Empty<byte>();
        foreach (var (round, keys) in new[] { ("bbbbbbbb", new[] { 3, 17 }), ("cccccccc", new[] { 17, 39 }) })
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("t");
                foreach (var k in keys)
                {
                    tree.Put(B($"key{k:D2}"), B($"value-{k:D2}-{round}"));
                    expected[$"key{k:D2}"] = $"value-{k:D2}-{round}";
                }

                tx.Commit();
            }

            if (middle.Length == 0)
            {
                middle = Image();
            }
        }

        var newImage = Image();
        env.CloseWithoutFlush();
        return new Scenario(fs, leaf, oldImage, middle, newImage, expected);
    }

    private static void WriteLeaf(Scenario scenario, Func<int, byte[]> sectorSource)
    {
        using var data = scenario.Fs.Open("/store/voron.data", FileOpenMode.OpenExisting);
        for (var sector = 0; sector < Constants.PageSize / 512; sector++)
        {
            data.Write(scenario.LeafPage * Constants.PageSize + sector * 512, sectorSource(sector).AsSpan(sector * 512, 512));
        }
    }

    private static void AssertRecovered(Scenario scenario, bool diffs = true, bool compression = true)
    {
        var options = StoreFactory.Options(scenario.Fs);
        options.JournalPageDiffs = diffs;
        options.JournalCompression = compression;
        using var env = StorageEnvironment.Open(options);
        using (var read = env.BeginRead())
        {
            var tree = read.OpenTree("t")!;
            Assert.Equal(scenario.Expected.Count, tree.Count);
            foreach (var (key, value) in scenario.Expected)
            {
                Assert.Equal(value, Encoding.UTF8.GetString(tree.Get(B(key))!));
            }

            Assert.Equal(scenario.NewImage, read.Low.GetPage(scenario.LeafPage).ToArray());
        }

        env.CheckIntegrity();
    }

    [Fact]
    public void Replay_gives_the_newest_page_when_the_data_file_holds_the_old_version()
    {
        var scenario = Build(diffs: true, compression: true);
        WriteLeaf(scenario, _ => scenario.OldImage);
        AssertRecovered(scenario);
    }

    [Fact]
    public void Replay_gives_the_newest_page_when_the_data_file_already_holds_the_newest_version()
    {
        var scenario = Build(diffs: true, compression: true);
        WriteLeaf(scenario, _ => scenario.NewImage);
        AssertRecovered(scenario);
    }

    [Fact]
    public void Replay_gives_the_newest_page_when_a_torn_flush_left_a_sector_mix_of_versions()
    {
        var seed = TestSeed.Next(output, nameof(Replay_gives_the_newest_page_when_a_torn_flush_left_a_sector_mix_of_versions));
        var random = new Random(seed);
        for (var round = 0; round < 20; round++)
        {
            var scenario = Build(diffs: true, compression: round % 2 == 0);
            var versions = new[] { scenario.OldImage, scenario.MiddleImage, scenario.NewImage };
            var picks = Enumerable.Range(0, Constants.PageSize / 512).Select(_ => random.Next(versions.Length)).ToArray();
            WriteLeaf(scenario, sector => versions[picks[sector]]);
            AssertRecovered(scenario, compression: round % 2 == 0);
        }
    }

    [Fact]
    public void Garbage_in_a_sector_no_diff_covers_is_caught_by_the_page_checksum()
    {
        var scenario = Build(diffs: true, compression: true);
        var garbage = Enumerable.Repeat((byte)0x5A, Constants.PageSize).ToArray();
        // The last sector of the leaf holds the oldest nodes, which no replayed diff touches.
        WriteLeaf(scenario, sector => sector == 2 ? garbage : scenario.OldImage);

        using var env = StorageEnvironment.Open(StoreFactory.Options(scenario.Fs));
        using var read = env.BeginRead();
        var error = Assert.Throws<CorruptionException>(() => read.OpenTree("t")!.Get(B("key00")));
        Assert.Contains("P4", error.Reason, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(false, true)]
    [InlineData(true, true)]
    public void Every_combination_of_diffs_and_compression_recovers(bool diffs, bool compression)
    {
        var scenario = Build(diffs, compression);
        WriteLeaf(scenario, _ => scenario.OldImage);
        AssertRecovered(scenario, diffs, compression);
    }
}

public sealed class MalformedDiffTests
{
    [Fact]
    public void Recover_reports_a_malformed_diff_as_corruption_naming_the_record_and_writes_nothing_out_of_bounds()
    {
        using var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs);
        options.JournalCompression = false; // so the test can find the diff's bytes in the record
        var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, "v"u8);
            tx.Commit();
        }

        var start = env.Journal.Position;
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, "w"u8);
            tx.Commit();
        }

        env.CloseWithoutFlush();
        var path = Voron.Journal.JournalFiles.PathOf("/store/journal", start.FileNumber);
        var rewritten = false;
        Voron.Testing.Journal.StoredRecords.Edit(fs, start, body =>
        {
            var payloadSize = (int)BitConverter.ToInt64(body[Voron.Journal.JournalRecord.StoredPayloadSizeOffset..]);
            var payload = body.Slice(Voron.Journal.JournalRecord.HeaderSize, payloadSize);
            for (var at = 0; at < payload.Length;)
            {
                var encoding = payload[at + Voron.Journal.JournalRecord.EntryEncodingOffset];
                var length = BitConverter.ToInt32(payload[(at + Voron.Journal.JournalRecord.EntryStoredLengthOffset)..]);
                var entry = at + Voron.Journal.JournalRecord.EntryHeaderSize;
                if (encoding != 0 && length >= 8 && !rewritten)
                {
                    BitConverter.TryWriteBytes(payload[entry..], 0xFFFF_FF00u); // the first range's offset: far out of bounds
                    rewritten = true;
                }

                at = entry + length;
            }
        });
        Assert.True(rewritten, "the record holds a diff entry");

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Equal(path, error.File);
        Assert.Equal(start.Offset, error.Offset);
        Assert.Contains("record tx 2", error.Reason, StringComparison.Ordinal);
        Assert.Contains("PD4", error.Reason, StringComparison.Ordinal);
    }
}
