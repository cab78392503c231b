namespace Voron.Tests.Core.Scratch;

/// <summary>
/// The memory bound: page versions a long-lived reader holds back beyond MaxPageVersionMemory spill
/// to the scratch file (Transactions/PageTable.cs PT6–PT8, Scratch/ScratchFile.cs SC1–SC5), while
/// every reader still reads exactly its snapshot.
/// </summary>
public sealed class ScratchSpillTests
{
    private const long Budget = 64 * 1024; // eight pages: the working set below is about twice that
    private const int Keys = 400;
    private static readonly Voron.Header.StoreLayout Layout = new("/store");
    private static readonly string ScratchPath = Layout.ScratchFile;

    private static StorageEnvironmentOptions Options(InMemoryFileSystem fileSystem, long budget = Budget)
    {
        var options = StoreFactory.Options(fileSystem);
        options.MaxPageVersionMemory = budget;
        return options;
    }

    /// <summary>A file's whole content, or nothing when it does not exist.</summary>
    private static byte[] ReadWhole(InMemoryFileSystem fileSystem, string path)
    {
        if (!fileSystem.FileExists(path))
        {
            return [];
        }

        using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
        var bytes = new byte[file.Length];
        Assert.Equal(bytes.Length, file.Read(0, bytes));
        return bytes;
    }

    private static byte[] Key(string key) => Encoding.UTF8.GetBytes(key);

    private static byte[] Value(int generation, string key) => Encoding.UTF8.GetBytes($"{key}@{generation}:".PadRight(120 + (generation % 7), (char)('a' + (generation % 26))));

    /// <summary>Commits generation <paramref name="generation"/>: a fifth of the keys overwritten and ten new ones; the model follows.</summary>
    private static void Commit(StorageEnvironment env, int generation, Dictionary<string, byte[]> model)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        var keys = generation == 0 ? Enumerable.Range(0, Keys).Select(i => $"k{i:D3}")
            : Enumerable.Range(0, Keys).Where(i => i % 5 == generation % 5).Select(i => $"k{i:D3}").Concat(Enumerable.Range(0, 10).Select(j => $"n{generation:D3}-{j}"));
        foreach (var key in keys)
        {
            var value = Value(generation, key);
            tree.Put(Key(key), value);
            model[key] = value;
        }

        tx.Commit();
    }

    private static void AssertReads(ReadTransaction reader, Dictionary<string, byte[]> expected, string who)
    {
        var tree = reader.OpenTree("t");
        Assert.NotNull(tree);
        var count = 0;
        var iterator = tree.Iterate();
        for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
        {
            count++;
        }

        Assert.True(expected.Count == count, $"{who}: {count} keys, expected {expected.Count}");
        foreach (var (key, value) in expected)
        {
            var actual = tree.Get(Key(key));
            Assert.True(actual != null && actual.AsSpan().SequenceEqual(value), $"{who}: {key} reads {(actual == null ? "nothing" : Encoding.UTF8.GetString(actual)[..12])}, expected {Encoding.UTF8.GetString(value)[..12]}");
        }
    }

    [Fact]
    public void A_long_reader_keeps_page_version_memory_under_the_budget_and_every_reader_reads_its_snapshot()
    {
        using var fs = StoreFactory.NewFileSystem();
        var model = new Dictionary<string, byte[]>();
        using (var env = StorageEnvironment.Open(Options(fs)))
        {
            var table = env.PageTable;
            Commit(env, 0, model); // not flushed: the long reader's own versions are in the page table, and spill first
            var oldModel = new Dictionary<string, byte[]>(model);
            var old = env.BeginRead();
            ReadTransaction? mid = null;
            Dictionary<string, byte[]>? midModel = null;
            for (var generation = 1; generation <= 60; generation++)
            {
                Commit(env, generation, model);
                Assert.True(table.MemoryBytes <= Budget, $"PT8: {table.MemoryBytes} bytes of page versions in memory after commit {generation}, budget {Budget}");
                if (generation == 30)
                {
                    mid = env.BeginRead();
                    midModel = new Dictionary<string, byte[]>(model);
                }

                if (generation % 10 == 0)
                {
                    env.FlushToDataFile(); // held back by the old reader: flushes no further than its snapshot, and maintains the page table
                    Assert.True(table.MemoryBytes <= Budget, $"PT8 after maintenance at {generation}: {table.MemoryBytes}");
                }
            }

            Assert.True(env.LastFlushedTransactionId <= old.Low.Committed.TxId, $"the old reader (at {old.Low.Committed.TxId}) holds the flush back; flushed through {env.LastFlushedTransactionId}");
            Assert.True(table.SpilledBytes > 0, "versions beyond the budget went to the scratch file");
            Assert.True(fs.FileExists(ScratchPath));
            // Pruning (PT6) frees the slots of versions nobody reads any more, and they are reused
            // (SC2): far more was written to the scratch file than it holds.
            Assert.True(table.Scratch.WrittenBytes > 2 * table.Scratch.Length,
                $"scratch slots reused: {table.Scratch.WrittenBytes} bytes written into a {table.Scratch.Length}-byte file");

            AssertReads(old, oldModel, "the long reader");
            AssertReads(mid!, midModel!, "the reader of commit 30");
            using (var newest = env.BeginRead())
            {
                AssertReads(newest, model, "a new reader");
            }

            old.Dispose();
            mid!.Dispose();
            env.FlushToDataFile(); // the flush catches up, writing spilled versions from the scratch file
            Assert.Equal(env.LastCommittedTransactionId, env.LastFlushedTransactionId);
            Assert.Equal(0, table.PageCount);
            Assert.Equal(0, table.MemoryBytes);
            Assert.Equal(0, table.SpilledBytes);
            Assert.Equal(0, table.Scratch.UsedBytes); // PT7: no transaction was live at the removal
            Assert.Equal(0, table.Scratch.Length);   // SC3: given back once empty
            using (var newest = env.BeginRead())
            {
                AssertReads(newest, model, "a reader after the flush (data file)");
            }

            // The scratch file is used again by the next long reader.
            var written = table.Scratch.WrittenBytes;
            var second = env.BeginRead();
            var secondModel = new Dictionary<string, byte[]>(model);
            for (var generation = 61; generation <= 90; generation++)
            {
                Commit(env, generation, model);
                Assert.True(table.MemoryBytes <= Budget, $"PT8: {table.MemoryBytes} bytes after commit {generation}");
            }

            Assert.True(table.Scratch.WrittenBytes > written, "the second long reader spilled too");
            AssertReads(second, secondModel, "the second long reader");
            second.Dispose();
            env.FlushToDataFile();
            Assert.Equal(0, table.SpilledBytes);
        }

        Assert.False(fs.FileExists(ScratchPath), "a clean close deletes the scratch file");
        using (var reopened = StorageEnvironment.Open(Options(fs)))
        using (var reader = reopened.BeginRead())
        {
            AssertReads(reader, model, "after reopening");
        }
    }

    /// <summary>
    /// With the flusher running in the background and commits racing readers that begin and end,
    /// memory stays under the budget and every reader reads its snapshot (merged commits, the
    /// background maintenance pass, retirement by generation: PT7).
    /// </summary>
    [Fact]
    public async Task Concurrent_readers_and_background_flushes_read_their_snapshots_under_a_small_budget()
    {
        using var fs = StoreFactory.NewFileSystem();
        var options = Options(fs, budget: 32 * 1024);
        options.BackgroundFlush = true;
        options.FlushInterval = TimeSpan.FromMilliseconds(5);
        options.FlushThresholdBytes = 64 * 1024;
        using var env = StorageEnvironment.Open(options);
        var model = new Dictionary<string, byte[]>();
        Commit(env, 0, model);
        var snapshots = new System.Collections.Concurrent.ConcurrentDictionary<long, Dictionary<string, byte[]>>();
        snapshots[env.LastCommittedTransactionId] = new(model);
        using var stop = new CancellationTokenSource();
        var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();
        var readers = Enumerable.Range(0, 2).Select(r => Task.Run(() =>
        {
            var random = new Random(r);
            while (!stop.IsCancellationRequested)
            {
                using var reader = env.BeginRead();
                var expected = snapshots[reader.Low.Committed.TxId];
                Thread.Sleep(random.Next(0, 20)); // some live long enough to make commits spill
                try
                {
                    AssertReads(reader, expected, $"reader at {reader.Low.Committed.TxId}");
                }
                catch (Exception e)
                {
                    failures.Enqueue(e.Message);
                }
            }
        })).ToList();

        for (var generation = 1; generation <= 80; generation++)
        {
            // Published before the commit is visible, so a reader never finds a snapshot unknown.
            var next = new Dictionary<string, byte[]>(model);
            var keys = Enumerable.Range(0, Keys).Where(i => i % 5 == generation % 5).Select(i => $"k{i:D3}").Concat(Enumerable.Range(0, 10).Select(j => $"n{generation:D3}-{j}"));
            foreach (var key in keys)
            {
                next[key] = Value(generation, key);
            }

            snapshots[env.LastCommittedTransactionId + 1] = next;
            Commit(env, generation, model);
            Assert.True(env.PageTable.MemoryBytes <= 32 * 1024, $"PT8: {env.PageTable.MemoryBytes} after commit {generation}");
        }

        await stop.CancelAsync();
        await Task.WhenAll(readers);
        Assert.Empty(failures);
        Assert.True(env.PageTable.Scratch.WrittenBytes > 0, "versions spilled (the flush threshold is above the budget)");
    }

    /// <summary>SC1: the scratch file is bytes on disk; a damaged slot is a CorruptionException naming it, and never reaches the data file.</summary>
    [Fact]
    public void A_damaged_scratch_slot_is_a_corruption_exception_and_never_reaches_the_data_file()
    {
        using var fs = StoreFactory.NewFileSystem();
        var model = new Dictionary<string, byte[]>();
        using (var env = StorageEnvironment.Open(Options(fs, budget: 16 * 1024)))
        {
            Commit(env, 0, model);
            var oldModel = new Dictionary<string, byte[]>(model);
            var old = env.BeginRead(); // reads nothing yet: its spilled versions are unchecked
            for (var generation = 1; generation <= 10; generation++)
            {
                Commit(env, generation, model);
            }

            var length = env.PageTable.Scratch.Length;
            Assert.True(env.PageTable.SpilledBytes > 0);
            using (var file = fs.Open(ScratchPath, FileOpenMode.OpenExisting))
            {
                var page = new byte[Constants.PageSize];
                for (long offset = 0; offset < length; offset += Constants.PageSize)
                {
                    file.Read(offset, page);
                    page[Constants.PageSize / 2] ^= 0x5A;
                    file.Write(offset, page);
                }
            }

            var error = Assert.Throws<CorruptionException>(() => AssertReads(old, oldModel, "the long reader"));
            Assert.Equal(ScratchPath, error.File);
            Assert.Contains("SC1", error.Message, StringComparison.Ordinal);
            old.Dispose();

            // The flusher reads the spilled versions through the same check: the store fails
            // (FL6) rather than write a damaged page to the data file. The data file and both
            // header copies are exactly as they were.
            string[] durable = [Layout.DataFile, Layout.HeaderFile(1), Layout.HeaderFile(2)];
            var before = durable.Select(path => ReadWhole(fs, path)).ToArray();
            var failed = Assert.Throws<EnvironmentFailedException>(() => env.FlushToDataFile());
            Assert.IsType<CorruptionException>(failed.InnerException);
            for (var i = 0; i < durable.Length; i++)
            {
                Assert.True(before[i].AsSpan().SequenceEqual(ReadWhole(fs, durable[i])), $"{durable[i]} changed by the failed flush");
            }
        }

        using (var reopened = StorageEnvironment.Open(Options(fs)))
        using (var reader = reopened.BeginRead())
        {
            AssertReads(reader, model, "after reopening (recovered from the journal)");
        }
    }

    /// <summary>The same on real files: the scratch file's mapping is reserved once and the file grows under it (SC3).</summary>
    [Fact]
    public void Spilled_versions_read_back_through_a_real_files_mapping()
    {
        using var directory = new TempDirectory();
        var options = StorageEnvironmentOptions.ForDirectory(directory.Path);
        options.BackgroundFlush = false;
        options.MaxPageVersionMemory = 16 * 1024;
        var model = new Dictionary<string, byte[]>();
        using (var env = StorageEnvironment.Open(options))
        {
            Commit(env, 0, model);
            var oldModel = new Dictionary<string, byte[]>(model);
            using (var old = env.BeginRead())
            {
                for (var generation = 1; generation <= 30; generation++)
                {
                    Commit(env, generation, model);
                    Assert.True(env.PageTable.MemoryBytes <= 16 * 1024);
                }

                Assert.True(File.Exists(directory.Combine("voron.scratch")));
                Assert.True(env.PageTable.SpilledBytes > 0);
                AssertReads(old, oldModel, "the long reader");
            }

            env.FlushToDataFile();
            Assert.Equal(env.LastCommittedTransactionId, env.LastFlushedTransactionId);
        }

        Assert.False(File.Exists(directory.Combine("voron.scratch")), "a clean close deletes the scratch file");
        using (var reopened = StorageEnvironment.Open(options))
        using (var reader = reopened.BeginRead())
        {
            AssertReads(reader, model, "after reopening");
        }
    }

    [Fact]
    public void Open_deletes_a_scratch_file_an_earlier_process_left()
    {
        using var fs = StoreFactory.NewFileSystem();
        using (var env = StorageEnvironment.Open(Options(fs)))
        {
            Commit(env, 0, []);
        }

        using (var leftover = fs.Open(ScratchPath, FileOpenMode.OpenOrCreate))
        {
            leftover.Write(0, new byte[Constants.PageSize].AsSpan());
        }

        using var reopened = StorageEnvironment.Open(Options(fs));
        Assert.False(fs.FileExists(ScratchPath));
    }

    [Fact]
    public void The_budget_must_hold_at_least_one_page()
    {
        var options = StorageEnvironmentOptions.CreateInMemory();
        Assert.Equal(256L << 20, options.MaxPageVersionMemory);
        Assert.Throws<ArgumentOutOfRangeException>(() => options.MaxPageVersionMemory = Constants.PageSize - 1);
        options.MaxPageVersionMemory = Constants.PageSize;
    }
}
