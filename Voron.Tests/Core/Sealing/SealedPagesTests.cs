using System.Text;
using Voron.Paging;
using Voron.Sealing;
using Voron.Testing;

namespace Voron.Tests.Core.Sealing;

/// <summary>
/// A sealed store's data file, scratch file and backups hold sealed pages only (PG7, SC5, BK10):
/// marker strings written as keys and values are found in no file, every page opens through the
/// decrypted-page cache, and a changed byte is a CorruptionException naming the file, offset and page.
/// </summary>
public sealed class SealedPagesTests(ITestOutputHelper output)
{
    private const string TreeName = "sealed";

    private static readonly byte[] Key = SealingFixtures.Key(23);

    [Fact]
    public async Task Marker_strings_are_in_no_file_of_a_sealed_store_its_scratch_file_its_backup_or_its_archive()
    {
        var markers = Enumerable.Range(0, 40).Select(i => $"PAGE-MARKER-{i:D2}-0x5EA1").ToArray();
        using var sealedRoot = new TempDirectory();
        using var plainRoot = new TempDirectory();
        var found = new Dictionary<string, List<string>>();
        foreach (var (root, key) in new[] { (sealedRoot.Path, Key), (plainRoot.Path, (byte[]?)null) })
        {
            var store = Path.Combine(root, "store");
            var archive = Path.Combine(root, "archive");
            var scratchSeen = new List<string>();
            using (var env = Open(store, key, archive: archive, maxVersionMemory: Constants.PageSize))
            {
                WriteMarkers(env, markers, 0, 20);
                env.FlushToDataFile();
                using (env.BeginRead()) // a long reader: the versions written while it lives are kept, over budget, in the scratch file
                {
                    WriteMarkers(env, markers, 20, 40);
                    WriteMarkers(env, markers, 0, 40); // second versions of the first pages
                    var scratch = Path.Combine(store, "voron.scratch");
                    Assert.True(File.Exists(scratch) && new FileInfo(scratch).Length > 0, "the test must make the store spill versions to its scratch file");
                    scratchSeen.AddRange(Scan(File.ReadAllBytes(scratch), markers, scratch));
                }

                await env.BackupAsync(Path.Combine(root, "backup")); // versions not yet in the data file come from the page table (BK10)
                env.FlushToDataFile();
            }

            var all = Directory.GetFiles(root, "*", SearchOption.AllDirectories).SelectMany(f => Scan(File.ReadAllBytes(f), markers, f)).ToList();
            found[root] = [.. all, .. scratchSeen];
        }

        Assert.Contains(found[plainRoot.Path], f => f.Contains("voron.data", StringComparison.Ordinal)); // the scan finds plaintext where it is
        Assert.Contains(found[plainRoot.Path], f => f.Contains("voron.scratch", StringComparison.Ordinal));
        Assert.Contains(found[plainRoot.Path], f => f.Contains(Path.Combine("backup", "voron.data"), StringComparison.Ordinal));
        Assert.Empty(found[sealedRoot.Path]);

        using var restoredRoot = new TempDirectory();
        var restored = Path.Combine(restoredRoot.Path, "restored");
        await StorageEnvironment.RestoreAsync(Path.Combine(sealedRoot.Path, "backup"), restored, new RestoreOptions { SealingKey = Key });
        using var opened = Open(restored, Key);
        using var read = opened.BeginRead();
        var tree = read.OpenTree(TreeName)!;
        foreach (var marker in markers)
        {
            Assert.True(tree.TryGet(Encoding.UTF8.GetBytes(marker), out var value));
            Assert.StartsWith(marker, Encoding.UTF8.GetString(value), StringComparison.Ordinal);
        }

        opened.CheckIntegrity();
    }

    [Fact]
    public void A_sealed_store_reads_as_its_model_through_a_decrypted_page_cache_far_smaller_than_the_store()
    {
        var seed = TestSeed.Next(output, nameof(A_sealed_store_reads_as_its_model_through_a_decrypted_page_cache_far_smaller_than_the_store));
        var random = new Random(seed);
        using var directory = new TempDirectory();
        var model = new SortedDictionary<string, byte[]>(StringComparer.Ordinal);
        var env = Open(directory.Path, Key, cacheBytes: 16 * Constants.PageSize);
        try
        {
            for (var t = 0; t < 120; t++)
            {
                using (var tx = env.BeginWrite())
                {
                    var tree = tx.CreateTree(TreeName);
                    for (var i = random.Next(1, 40); i > 0; i--)
                    {
                        var key = $"k{random.Next(2000):D5}";
                        if (random.Next(8) == 0)
                        {
                            tree.Delete(Encoding.UTF8.GetBytes(key));
                            model.Remove(key);
                        }
                        else
                        {
                            var value = new byte[random.Next(12) == 0 ? random.Next(9000, 30_000) : random.Next(1, 400)];
                            random.NextBytes(value);
                            tree.Put(Encoding.UTF8.GetBytes(key), value);
                            model[key] = value;
                        }
                    }

                    tx.Commit();
                }

                switch (random.Next(12))
                {
                    case 0:
                        env.FlushToDataFile();
                        Compare(env, model, $"seed {seed}, after a flush at transaction {t}");
                        break;
                    case 1:
                        env.FlushToDataFile();
                        env.Dispose();
                        env = Open(directory.Path, Key, cacheBytes: 16 * Constants.PageSize);
                        Compare(env, model, $"seed {seed}, after a reopen at transaction {t}");
                        break;
                    case 2:
                        env.CloseWithoutFlush();
                        env = Open(directory.Path, Key, cacheBytes: 16 * Constants.PageSize);
                        Compare(env, model, $"seed {seed}, after a recovery at transaction {t}");
                        break;
                }
            }

            env.FlushToDataFile();
            Compare(env, model, $"seed {seed}, at the end");
            env.CheckIntegrity();
            var cache = env.Pager.SealedPages!.Cache;
            Assert.True(cache.Evictions > 0, "the cache must have been too small for the store");
            Assert.True(cache.Bytes <= 16 * Constants.PageSize, $"the cache holds {cache.Bytes} bytes, above its capacity");
        }
        finally
        {
            env.Dispose();
        }

        // Every page the data file holds, except the identity page, is sealed or was never written.
        var data = File.ReadAllBytes(Path.Combine(directory.Path, "voron.data"));
        for (long page = 1; page < data.Length / Constants.PageSize; page++)
        {
            var bytes = data.AsSpan((int)(page * Constants.PageSize), Constants.PageSize);
            if (bytes.ContainsAnyExcept((byte)0) && PageHeader.GetPageNumber(bytes) == page)
            {
                Assert.True(SealedPages.IsSealedImage(bytes), $"page {page} of the data file is not sealed");
            }
        }
    }

    [Theory]
    [InlineData("torn")]
    [InlineData("forged")]
    public void A_changed_byte_in_a_sealed_data_file_page_is_CorruptionException_naming_the_file_offset_and_page(string how)
    {
        using var directory = new TempDirectory();
        using (var env = Open(directory.Path, Key))
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree(TreeName);
                for (var i = 0; i < 200; i++)
                {
                    tree.Put(Encoding.UTF8.GetBytes($"k{i:D4}"), Encoding.UTF8.GetBytes($"value {i}"));
                }

                tx.Commit();
            }

            env.FlushToDataFile();
        }

        var dataFile = Path.Combine(directory.Path, "voron.data");
        var data = File.ReadAllBytes(dataFile);
        var victim = Enumerable.Range(1, data.Length / Constants.PageSize - 1)
            .First(p => PageHeader.GetFlags(data.AsSpan(p * Constants.PageSize)) == PageFlags.Leaf && PageHeader.GetPageNumber(data.AsSpan(p * Constants.PageSize)) == p);
        var page = data.AsSpan(victim * Constants.PageSize, Constants.PageSize);
        page[Constants.PageSize - 100] ^= 0x10;
        if (how == "forged")
        {
            PageHeader.StampChecksum(page); // as someone without the key would: the checksum holds, the seal does not
        }

        File.WriteAllBytes(dataFile, data);

        using var reopened = Open(directory.Path, Key);
        var error = Assert.Throws<CorruptionException>(() =>
        {
            using var read = reopened.BeginRead();
            var tree = read.OpenTree(TreeName)!;
            for (var i = 0; i < 200; i++)
            {
                tree.TryGet(Encoding.UTF8.GetBytes($"k{i:D4}"), out _);
            }
        });

        Assert.Equal(dataFile, error.File);
        Assert.Equal((long)victim * Constants.PageSize, error.Offset);
        Assert.Contains($"page {victim}", error.Message, StringComparison.Ordinal);
        Assert.Contains(how == "torn" ? "P4" : "SL3", error.Message, StringComparison.Ordinal);
    }

    private static void WriteMarkers(StorageEnvironment env, string[] markers, int from, int to)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree(TreeName);
        for (var i = from; i < to; i++)
        {
            var value = i % 5 == 0 ? string.Concat(Enumerable.Repeat(markers[i] + " ", 600)) : markers[i] + " value"; // some overflow runs
            tree.Put(Encoding.UTF8.GetBytes(markers[i]), Encoding.UTF8.GetBytes(value));
        }

        tx.Commit();
    }

    /// <summary>
    /// OP3 through the public API: DecryptedPageCacheSize is what the cache holds at most, and
    /// GetStatistics says so. Reads after a reopen come from the data file, so each page is
    /// decrypted into the cache; a 64 KiB cache must evict, the default must not, 0 keeps nothing,
    /// and every read is right whatever the size.
    /// </summary>
    [Theory]
    [InlineData(64 * 1024)]
    [InlineData(0)]
    [InlineData(SealedPages.DefaultCacheBytes)]
    public void DecryptedPageCacheSize_bounds_the_cache_and_GetStatistics_reports_its_use(long size)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => StorageEnvironmentOptions.CreateInMemory().DecryptedPageCacheSize = -1);
        using var directory = new TempDirectory();
        StorageEnvironment OpenPublic()
        {
            var options = StorageEnvironmentOptions.ForDirectory(directory.Path);
            options.EncryptionKey = Key;
            options.DecryptedPageCacheSize = size;
            return StorageEnvironment.Open(options);
        }

        var model = new SortedDictionary<string, byte[]>(StringComparer.Ordinal);
        using (var env = OpenPublic())
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree(TreeName);
            for (var i = 0; i < 3000; i++)
            {
                var value = Encoding.UTF8.GetBytes(new string((char)('a' + (i % 26)), 200));
                tree.Put(Encoding.UTF8.GetBytes($"k{i:D5}"), value);
                model[$"k{i:D5}"] = value;
            }

            tx.Commit();
            env.FlushToDataFile();
        }

        using (var env = OpenPublic())
        {
            Compare(env, model, $"cache of {size} bytes");
            var cache = env.GetStatistics().DecryptedPages;
            Assert.NotNull(cache);
            Assert.Equal(size, cache.CapacityBytes);
            Assert.True(cache.Bytes <= size, $"the cache holds {cache.Bytes} bytes, above its {size}");
            Assert.True(cache.Misses > 20, $"{cache.Misses} misses: the reads did not decrypt from the data file");
            if (size == SealedPages.DefaultCacheBytes)
            {
                Assert.Equal(0, cache.Evictions);
                Assert.True(cache.Pages > 20, $"{cache.Pages} pages kept");
            }
            else if (size == 0)
            {
                Assert.Equal((0L, 0), (cache.Bytes, cache.Pages));
            }
            else
            {
                Assert.True(cache.Evictions > 0, "a 64 KiB cache must evict to hold about 80 pages of leaves");
            }
        }

        using var plain = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        Assert.Null(plain.GetStatistics().DecryptedPages);
    }

    private static IEnumerable<string> Scan(byte[] bytes, string[] markers, string file) =>
        markers.Where(m => bytes.AsSpan().IndexOf(Encoding.UTF8.GetBytes(m)) >= 0).Select(m => $"{m} in {file}");

    private static StorageEnvironment Open(string directory, byte[]? key, string? archive = null, long maxVersionMemory = 256L << 20, long cacheBytes = SealedPages.DefaultCacheBytes)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.BackgroundFlush = false;
        options.JournalFileSize = 64 * 1024;
        options.JournalArchiveDirectory = archive;
        options.JournalCompression = false; // so the plaintext control finds its markers in the journal too
        options.MaxPageVersionMemory = maxVersionMemory;
        options.DecryptedPageCacheSize = cacheBytes;
        options.SealingKey = key;
        return StorageEnvironment.Open(options);
    }

    private static void Compare(StorageEnvironment env, SortedDictionary<string, byte[]> model, string where)
    {
        using var read = env.BeginRead();
        var tree = read.OpenTree(TreeName);
        Assert.True((tree?.Count ?? 0) == model.Count, $"{where}: {tree?.Count ?? 0} keys, the model has {model.Count}");
        var iterator = tree!.Iterate();
        var expected = model.GetEnumerator();
        for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
        {
            Assert.True(expected.MoveNext(), $"{where}: more keys than the model");
            Assert.Equal(expected.Current.Key, Encoding.UTF8.GetString(iterator.Key));
            Assert.True(iterator.Value.SequenceEqual(expected.Current.Value), $"{where}: key {expected.Current.Key} differs");
        }

        Assert.False(expected.MoveNext(), $"{where}: fewer keys than the model");
    }
}
