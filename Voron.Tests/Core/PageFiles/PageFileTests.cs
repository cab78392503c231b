using Voron.PageFiles;

namespace Voron.Tests.Core.PageFiles;

public sealed class PageFileTests
{
    private static byte[] Pattern(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    [Fact]
    public void Write_then_read_returns_the_bytes_across_blocks_and_reopen()
    {
        using var fileSystem = StoreFactory.NewFileSystem();
        var data = Pattern(3 * 8192 + 100, 1);
        using (var env = StorageEnvironment.Open(StoreFactory.Options(fileSystem)))
        {
            using (var tx = env.BeginWrite())
            {
                tx.CreatePageFile("orders").Write(500, data);
                tx.Commit();
            }

            using var read = env.BeginRead();
            var file = read.OpenPageFile("orders")!;
            Assert.Equal(500 + data.Length, file.Length);
            var back = new byte[data.Length];
            Assert.Equal(data.Length, file.Read(500, back));
            Assert.Equal(data, back);
        }

        // Recovery replays the journal (nothing was flushed to the data file).
        using (var env = StorageEnvironment.Open(StoreFactory.Options(fileSystem)))
        {
            using var read = env.BeginRead();
            var back = new byte[data.Length];
            read.OpenPageFile("orders")!.Read(500, back);
            Assert.Equal(data, back);
            env.CheckIntegrity();
        }
    }

    [Fact]
    public void Read_zero_fills_holes_and_bytes_past_the_end()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        using var tx = env.BeginWrite();
        var file = tx.CreatePageFile("f");
        file.Write(5 * 8192, new byte[] { 7, 7, 7 });
        var buffer = Pattern(8192, 2);
        Assert.Equal(8192, file.Read(0, buffer));
        Assert.All(buffer, b => Assert.Equal(0, b));

        var tail = Pattern(10, 3);
        Assert.Equal(3, file.Read(5 * 8192, tail));
        Assert.Equal(new byte[] { 7, 7, 7, 0, 0, 0, 0, 0, 0, 0 }, tail);
    }

    [Fact]
    public void SetLength_frees_blocks_past_the_end_and_zeroes_the_tail()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        using (var tx = env.BeginWrite())
        {
            tx.CreatePageFile("f").Write(0, Pattern(10 * 8192, 4));
            tx.Commit();
        }

        var before = env.CheckIntegrity();
        using (var tx = env.BeginWrite())
        {
            var file = tx.OpenPageFile("f")!;
            file.SetLength(2 * 8192 + 10);
            file.SetLength(3 * 8192);
            var tail = new byte[8192];
            file.Read(2 * 8192, tail);
            Assert.All(tail.AsSpan(10).ToArray(), b => Assert.Equal(0, b));
            tx.Commit();
        }

        var after = env.CheckIntegrity();
        Assert.Equal(before.FreePages + 7, after.FreePages);
    }

    [Fact]
    public void A_reader_keeps_its_snapshot_while_a_writer_commits()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        using (var tx = env.BeginWrite())
        {
            tx.CreatePageFile("f").Write(0, Pattern(8192, 5));
            tx.Commit();
        }

        using var reader = env.BeginRead();
        using (var tx = env.BeginWrite())
        {
            tx.OpenPageFile("f")!.Write(10, new byte[] { 1, 2, 3 });
            tx.Commit();
        }

        var old = new byte[8192];
        reader.OpenPageFile("f")!.Read(0, old);
        Assert.Equal(Pattern(8192, 5), old);
    }

    [Fact]
    public void A_write_that_changes_a_few_bytes_journals_only_those_bytes()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        using (var tx = env.BeginWrite())
        {
            tx.CreatePageFile("f").Write(0, Pattern(8192, 6));
            tx.Commit();
        }

        env.FlushToDataFile(); // the previous version is then read from the data file, as in steady state

        using var write = env.BeginWrite();
        var page = Pattern(8192, 6);
        page[1000] ^= 0xFF;
        page[1001] ^= 0xFF;
        page[5000] ^= 0x01;
        write.OpenPageFile("f")!.Write(0, page); // a whole-block write, as SQLite does
        var prepared = env.Prepare(write.Low)!;
        long rawBytes = 0;
        foreach (var entry in prepared.JournalPages)
        {
            Assert.NotEqual(JournalPageEncoding.FullImage, entry.Encoding);
            rawBytes = Math.Max(rawBytes, entry.Image.Length);
        }

        // The raw page's diff and the map leaf's (a new checksum) are a few dozen bytes each.
        Assert.InRange(rawBytes, 1, 64);
        prepared.ReleaseDiffArena();
    }

    /// <summary>
    /// M8 bounds a merged batch by the bytes of the pages it holds (DirtyBytes): a raw page a block
    /// write copies counts like any page (it once went into the transaction's pages uncounted).
    /// </summary>
    [Fact]
    public void Every_page_a_transaction_holds_counts_in_its_dirty_bytes_raw_pages_included()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        using (var tx = env.BeginWrite())
        {
            tx.CreatePageFile("f").Write(0, Pattern(4 * 8192, 8));
            tx.Commit();
        }

        env.FlushToDataFile();
        using var write = env.BeginWrite();
        var file = write.OpenPageFile("f")!;
        file.Write(0, Pattern(8192, 9)); // a whole block: the copy is not read first (overwrite)
        file.Write(2 * 8192 + 100, [1, 2, 3]); // a part: the copy starts from the current version
        Assert.Equal((long)write.Low.DirtyPageCount * Constants.PageSize, write.Low.DirtyBytes);
        Assert.True(write.Low.DirtyPageCount >= 3, $"two blocks and the map leaf: {write.Low.DirtyPageCount} pages held");
    }

    [Fact]
    public void A_damaged_block_in_the_data_file_is_a_corruption_naming_the_page_file()
    {
        using var directory = new TempDirectory();
        long page;
        using (var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory.Path)))
        {
            using (var tx = env.BeginWrite())
            {
                tx.CreatePageFile("orders").Write(0, Pattern(8192, 7));
                tx.Commit();
            }

            using var read = env.BeginRead();
            page = BlockPage(read, "orders", 0);
        }

        var dataFile = Directory.GetFiles(directory.Path, "*.data").Single();
        using (var stream = new FileStream(dataFile, FileMode.Open, FileAccess.ReadWrite))
        {
            stream.Position = page * 8192 + 4000;
            var b = stream.ReadByte();
            stream.Position--;
            stream.WriteByte((byte)(b ^ 0x10));
        }

        using (var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory.Path)))
        {
            using var read = env.BeginRead();
            var error = Assert.Throws<CorruptionException>(() => read.OpenPageFile("orders")!.Read(0, new byte[100]));
            Assert.Contains("page file 'orders'", error.Message, StringComparison.Ordinal);
            Assert.Equal(page * 8192, error.Offset);
            Assert.Throws<CorruptionException>(() => env.CheckIntegrity());
        }
    }

    /// <summary>
    /// Regression: PF2 was checked as block * 8192 &lt; Length, so a block number of 2^51 (its
    /// product wraps to 0) passed. It is now checked by division.
    /// </summary>
    [Theory]
    [InlineData(1L << 51)]
    [InlineData(long.MaxValue / 8192)]
    [InlineData(1)]
    public void Integrity_check_refuses_a_block_past_the_files_length_even_when_its_offset_wraps(long block)
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        using (var tx = env.BeginWrite())
        {
            tx.CreatePageFile("a").Write(0, Pattern(100, 10)); // one block: 0
            tx.Commit();
        }

        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree(PageFileFormat.TreeName("a"));
            var key = new byte[PageFileFormat.BlockKeySize];
            PageFileFormat.WriteBlockKey(key, 0);
            var entry = tree.Get(key)!;
            PageFileFormat.WriteBlockKey(key, block);
            tree.Put(key, entry); // a forged entry: as if written so
            tx.Commit();
        }

        var error = Assert.Throws<CorruptionException>(() => env.CheckIntegrity());
        Assert.Contains("PF2", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Integrity_check_claims_every_block_and_lists_page_files()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        using (var tx = env.BeginWrite())
        {
            tx.CreatePageFile("a").Write(0, Pattern(4 * 8192, 8));
            tx.CreatePageFile("b").Write(8192 * 3, Pattern(100, 9));
            tx.CreateTree("users").Put("k"u8, "v"u8);
            tx.Commit();
        }

        env.CheckIntegrity();
        using (var tx = env.BeginWrite())
        {
            Assert.True(tx.DeletePageFile("a"));
            Assert.False(tx.DeletePageFile("a"));
            tx.Commit();
        }

        env.CheckIntegrity();
        using var read = env.BeginRead();
        Assert.Equal(["b"], read.GetPageFileNames());
    }

    [Fact]
    public void Names_that_cannot_be_page_files_are_refused()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        using var tx = env.BeginWrite();
        Assert.Throws<ArgumentException>(() => tx.CreatePageFile(""));
        Assert.Throws<ArgumentException>(() => tx.CreatePageFile(new string('x', 300)));
        Assert.Throws<ArgumentException>(() => tx.CreatePageFile("a\nb"));
    }

    [Fact]
    public void Random_writes_and_truncations_match_a_byte_array_model()
    {
        var seed = Environment.GetEnvironmentVariable("VORON_SEED") is { } s ? int.Parse(s, System.Globalization.CultureInfo.InvariantCulture) : Random.Shared.Next();
        var random = new Random(seed);
        using var fileSystem = StoreFactory.NewFileSystem();
        var model = new List<byte>();
        var env = StorageEnvironment.Open(StoreFactory.Options(fileSystem));
        try
        {
            for (var round = 0; round < 60; round++)
            {
                using (var tx = env.BeginWrite())
                {
                    var file = tx.CreatePageFile("m");
                    for (var op = 0; op < 4; op++)
                    {
                        if (random.Next(5) == 0)
                        {
                            var length = random.Next(0, 12 * 8192);
                            file.SetLength(length);
                            while (model.Count > length)
                            {
                                model.RemoveAt(model.Count - 1);
                            }

                            while (model.Count < length)
                            {
                                model.Add(0);
                            }
                        }
                        else
                        {
                            var offset = random.Next(0, 10 * 8192);
                            var bytes = Pattern(random.Next(1, 3 * 8192), random.Next());
                            file.Write(offset, bytes);
                            while (model.Count < offset + bytes.Length)
                            {
                                model.Add(0);
                            }

                            for (var i = 0; i < bytes.Length; i++)
                            {
                                model[offset + i] = bytes[i];
                            }
                        }
                    }

                    tx.Commit();
                }

                if (round % 10 == 9)
                {
                    env.FlushToDataFile();
                }

                if (round % 20 == 19)
                {
                    env.CloseWithoutFlush();
                    env = StorageEnvironment.Open(StoreFactory.Options(fileSystem));
                }

                using var read = env.BeginRead();
                var stored = read.OpenPageFile("m")!;
                Assert.True(model.Count == stored.Length, $"seed {seed} round {round}: length {stored.Length}, model {model.Count}");
                var back = new byte[model.Count];
                stored.Read(0, back);
                Assert.True(model.SequenceEqual(back), $"seed {seed} round {round}: contents differ (replay with VORON_SEED={seed})");
            }

            env.CheckIntegrity();
        }
        finally
        {
            env.Dispose();
        }
    }

    [Fact]
    public void MaxNameBytes_is_the_longest_name_accepted_and_BlockSize_the_page_size()
    {
        // The public constants the SQLite VFS uses instead of PageFileFormat's: they must say what
        // the format does (PageFile.MaxNameBytes is documented as 246).
        Assert.Equal(8192, PageFile.BlockSize);
        Assert.Equal(Constants.PageSize, PageFile.BlockSize);
        Assert.Equal(246, PageFile.MaxNameBytes);
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        using var tx = env.BeginWrite();
        var longest = new string('n', PageFile.MaxNameBytes);
        tx.CreatePageFile(longest).Write(0, "x"u8);
        Assert.Equal(1, tx.OpenPageFile(longest)!.Length);
        Assert.Throws<ArgumentException>(() => tx.CreatePageFile(longest + "n"));
    }

    private static long BlockPage(ReadTransaction read, string name, long block)
    {
        var map = read.Low.OpenTree(PageFileFormat.TreeName(name))!;
        Span<byte> key = stackalloc byte[8];
        PageFileFormat.WriteBlockKey(key, block);
        Assert.True(map.TryGet(key, out var value));
        return PageFileFormat.ReadEntry(value, "", name, block).Page;
    }
}
