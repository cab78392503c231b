namespace Voron.Tests.Core.Properties;

/// <summary>
/// Model-based, on the portable file system, whose mappings move as files grow: random commits
/// (large values grow the data file; a small page-version budget spills versions to the scratch
/// file and grows it), long readers that begin, read, iterate and end at random, and flushes, whose
/// maintenance passes release the views growth left behind (Paging/SupersededViews.cs, MV1–MV5).
/// After every step, no view a live reader may hold is released: a reader that began when a
/// mapping had left n views behind reads through view n or a newer one, so at most n may be
/// released while it lives. Each reader reads its snapshot (a plain dictionary) at any time,
/// its iterator included, which keeps the address of the leaf it is on across growths. With no
/// reader live, two passes leave one view per mapping. VORON_PORTABLE_FULL=1 runs ten times the
/// steps; replay with VORON_SEED.
/// </summary>
public sealed class PortableViewsModelTests(ITestOutputHelper output)
{
    private const string TreeName = "model";

    private sealed class Reader(ReadTransaction read, Dictionary<string, byte[]> snapshot, long dataViews, long scratchViews)
    {
        public ReadTransaction Read { get; } = read;

        public Dictionary<string, byte[]> Snapshot { get; } = snapshot;

        /// <summary>Views each mapping had left behind when the reader began: it holds none older.</summary>
        public long DataViews { get; } = dataViews;

        public long ScratchViews { get; } = scratchViews;

        public string[] Keys { get; } = [.. snapshot.Keys.Order(StringComparer.Ordinal)];

        public TreeIterator? Iterator { get; set; }

        public int Position { get; set; } = -1;
    }

    [Fact]
    public void Readers_read_their_snapshots_across_growth_and_no_view_a_live_reader_may_hold_is_released()
    {
        var seed = TestSeed.Next(output, nameof(PortableViewsModelTests));
        var random = new Random(seed);
        var steps = Voron.Testing.Crash.CrashBudget.PortableFull ? 3000 : 300;
        using var directory = new TempDirectory();
        var options = StorageEnvironmentOptions.ForDirectory(directory.Path);
        options.UsePortableFileSystem = true;
        options.BackgroundFlush = false; // passes run at the explicit flushes: the test knows when
        options.Durability = DurabilityMode.Lazy;
        options.MaxPageVersionMemory = 64 * 1024; // versions readers hold back spill, and the scratch file grows
        options.MaxDataFileSize = 1L << 30;
        using var env = StorageEnvironment.Open(options);
        var committed = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        var readers = new List<Reader>();
        long quiesced = 0, maxHeld = 0;
        try
        {
            for (var step = 0; step < steps; step++)
            {
                var where = $"seed {seed}, step {step}";
                var roll = random.Next(100);
                if (roll < 50)
                {
                    committed = Commit(env, committed, random);
                }
                else if (roll < 60 && readers.Count < 6)
                {
                    var read = env.BeginRead();
                    readers.Add(new Reader(read, new Dictionary<string, byte[]>(committed, StringComparer.Ordinal),
                        env.Pager.Views.Published, env.PageTable.Scratch.Views?.Published ?? 0));
                }
                else if (roll < 75 && readers.Count > 0)
                {
                    Check(readers[random.Next(readers.Count)], random, where);
                }
                else if (roll < 85 && readers.Count > 0)
                {
                    var reader = readers[random.Next(readers.Count)];
                    Check(reader, random, where);
                    reader.Read.Dispose();
                    readers.Remove(reader);
                }
                else if (readers.Count == 0 && roll < 88)
                {
                    Quiesce(env, where);
                    quiesced++;
                }
                else
                {
                    env.FlushToDataFile();
                }

                AssertNothingHeldIsReleased(env, readers, where);
                maxHeld = Math.Max(maxHeld, env.Pager.MappedBytes - env.Pager.PageCount * Constants.PageSize);
            }

            foreach (var reader in readers)
            {
                Check(reader, random, $"seed {seed}, reader held to the end");
                reader.Read.Dispose();
            }

            readers.Clear();
            Quiesce(env, $"seed {seed}, at the end");
            using (var read = env.BeginRead())
            {
                Compare(read, committed, $"seed {seed}, at the end");
            }

            env.CheckIntegrity();
        }
        finally
        {
            readers.ForEach(r => r.Read.Dispose());
        }

        var scratch = env.PageTable.Scratch.Views;
        output.WriteLine($"{steps} steps: data file {env.Pager.PageCount * Constants.PageSize:N0} bytes, {env.Pager.Views.Published + 1} views of it; " +
            $"scratch {(scratch == null ? "never spilled" : $"{scratch.Published + 1} views")}; most bytes held in old data-file views {maxHeld:N0}; " +
            $"{quiesced} checks with no reader live");
        Assert.True(env.Pager.Views.Published >= 3, $"seed {seed}: the data file grew in only {env.Pager.Views.Published} steps");
    }

    private static Dictionary<string, byte[]> Commit(StorageEnvironment env, Dictionary<string, byte[]> committed, Random random)
    {
        var working = new Dictionary<string, byte[]>(committed, StringComparer.Ordinal);
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree(TreeName);
        for (var i = random.Next(1, 9); i > 0; i--)
        {
            var key = $"k{random.Next(400):D4}";
            if (random.Next(7) == 0)
            {
                tree.Delete(Encoding.UTF8.GetBytes(key));
                working.Remove(key);
            }
            else
            {
                var value = new byte[random.Next(10) < 3 ? random.Next(8 << 10, 64 << 10) : random.Next(100, 2000)];
                random.NextBytes(value);
                tree.Put(Encoding.UTF8.GetBytes(key), value);
                working[key] = value;
            }
        }

        tx.Commit();
        return working;
    }

    /// <summary>Reads the whole snapshot, and moves the reader's iterator on by a few entries (opening it the first time).</summary>
    private static void Check(Reader reader, Random random, string where)
    {
        Compare(reader.Read, reader.Snapshot, where);
        var tree = reader.Read.OpenTree(TreeName);
        if (tree == null)
        {
            return;
        }

        if (reader.Iterator == null)
        {
            reader.Iterator = tree.Iterate();
            Assert.True(reader.Iterator.SeekFirst() == (reader.Keys.Length > 0), $"{where}: the iterator's first entry");
            reader.Position = 0;
        }

        for (var moves = random.Next(1, 20); moves > 0 && reader.Position < reader.Keys.Length; moves--)
        {
            var key = reader.Keys[reader.Position];
            Assert.True(Encoding.UTF8.GetString(reader.Iterator.Key) == key, $"{where}: the iterator is on {Encoding.UTF8.GetString(reader.Iterator.Key)}, the model on {key}");
            Assert.True(reader.Iterator.Value.SequenceEqual(reader.Snapshot[key]), $"{where}: the iterator's value of {key} differs");
            reader.Position++;
            Assert.True(reader.Iterator.MoveNext() == (reader.Position < reader.Keys.Length), $"{where}: the iterator ends where the model does");
        }
    }

    /// <summary>MV4: a reader that began when a mapping had left n views behind holds view n or newer, so at most n are released.</summary>
    private static void AssertNothingHeldIsReleased(StorageEnvironment env, List<Reader> readers, string where)
    {
        if (readers.Count == 0)
        {
            return;
        }

        var data = readers.Min(r => r.DataViews);
        Assert.True(env.Pager.Views.Released <= data, $"{where}: {env.Pager.Views.Released} data-file views released, a live reader began when {data} were left behind");
        if (env.PageTable.Scratch.Views is { } scratch)
        {
            var left = readers.Min(r => r.ScratchViews);
            Assert.True(scratch.Released <= left, $"{where}: {scratch.Released} scratch views released, a live reader began when {left} were left behind");
        }
    }

    /// <summary>MV5: with no transaction live, two passes leave each mapping one view, the data file's covering the file.</summary>
    private static void Quiesce(StorageEnvironment env, string where)
    {
        env.FlushToDataFile();
        env.FlushToDataFile();
        Assert.True(env.Pager.Views.Released == env.Pager.Views.Published, $"{where}: {env.Pager.Views.Released} of {env.Pager.Views.Published} data-file views released");
        Assert.True(env.Pager.MappedBytes == env.Pager.PageCount * Constants.PageSize, $"{where}: {env.Pager.MappedBytes:N0} bytes mapped for a {env.Pager.PageCount * Constants.PageSize:N0}-byte file");
        if (env.PageTable.Scratch.Views is { } scratch)
        {
            Assert.True(scratch.Released == scratch.Published, $"{where}: {scratch.Released} of {scratch.Published} scratch views released");
        }
    }

    private static void Compare(ReadTransaction read, Dictionary<string, byte[]> expected, string where)
    {
        var tree = read.OpenTree(TreeName);
        Assert.True((tree?.Count ?? 0) == expected.Count, $"{where}: {tree?.Count ?? 0} keys, the model has {expected.Count}");
        foreach (var (key, value) in expected)
        {
            Assert.True(tree!.TryGet(Encoding.UTF8.GetBytes(key), out var actual) && actual.SequenceEqual(value), $"{where}: key {key} differs");
        }
    }
}
