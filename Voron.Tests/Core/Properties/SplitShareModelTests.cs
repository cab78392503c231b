namespace Voron.Tests.Core.Properties;

/// <summary>
/// Model-based test of leaves with holes (B8 in Trees/TreePage.cs): random puts and deletes of
/// values that fill a leaf in a handful of nodes, at random keys, so leaves split and (in long
/// transactions) share often and later inserts fill the holes or compact the leaf. The store is
/// compared with a sorted dictionary after commits, reopens, flushes and crash recovery (the
/// journal's diffs replayed over the data file's pages), and its integrity checked (B8 included).
/// Rerun a failure with VORON_SEED=&lt;seed&gt;.
/// </summary>
public sealed class SplitShareModelTests(ITestOutputHelper output)
{
    private sealed class ByteComparer : IComparer<byte[]>
    {
        public static readonly ByteComparer Instance = new();

        public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
    }

    [Fact]
    public void Random_splits_and_shares_match_a_sorted_dictionary_after_commit_reopen_and_recovery()
    {
        var seed = TestSeed.Next(output, nameof(Random_splits_and_shares_match_a_sorted_dictionary_after_commit_reopen_and_recovery));
        var random = new Random(seed);
        using var fs = Engine.StoreFactory.NewFileSystem();
        var env = StorageEnvironment.Open(Engine.StoreFactory.Options(fs, journalFileSize: 512 * 1024));
        var committed = new SortedDictionary<byte[], byte[]>(ByteComparer.Instance);
        var keys = new List<byte[]>();
        const int operations = 24_000;
        var done = 0;
        var step = 0;
        try
        {
            while (done < operations)
            {
                step++;
                var working = new SortedDictionary<byte[], byte[]>(committed, ByteComparer.Instance);

                // Mostly short transactions (splits of clean leaves), now and then a long one in
                // which full leaves find their siblings already held and share (BT12).
                var length = random.Next(8) == 0 ? random.Next(300, 1_500) : random.Next(1, 40);
                using (var tx = env.BeginWrite())
                {
                    var tree = tx.CreateTree("model");
                    for (var i = 0; i < length; i++, done++)
                    {
                        Apply(random, tree, working, keys);
                    }

                    if (random.Next(12) == 0)
                    {
                        continue; // rollback: dispose without commit
                    }

                    tx.Commit();
                    committed = working;
                }

                switch (random.Next(16))
                {
                    case 0:
                        env.Dispose();
                        env = StorageEnvironment.Open(Engine.StoreFactory.Options(fs, journalFileSize: 512 * 1024));
                        break;
                    case 1 or 2:
                        env.CloseWithoutFlush(); // recovery replays the journal over the data file
                        env = StorageEnvironment.Open(Engine.StoreFactory.Options(fs, journalFileSize: 512 * 1024));
                        break;
                    case 3 or 4:
                        env.FlushToDataFile();
                        break;
                    case 5:
                        env.CheckIntegrity();
                        break;
                }

                if (random.Next(6) == 0)
                {
                    CompareAll(env, committed, seed, step);
                }
            }

            CompareAll(env, committed, seed, step);
            env.CheckIntegrity();
            env.CloseWithoutFlush();
            env = StorageEnvironment.Open(Engine.StoreFactory.Options(fs, journalFileSize: 512 * 1024));
            CompareAll(env, committed, seed, step);
            env.CheckIntegrity();
        }
        finally
        {
            env.Dispose();
        }

        output.WriteLine($"{done} operations in {step} transactions, {committed.Count} keys at the end");
    }

    private static void Apply(Random random, Tree tree, SortedDictionary<byte[], byte[]> model, List<byte[]> keys)
    {
        var roll = random.Next(100);
        if (roll < 55 || keys.Count == 0)
        {
            var key = new byte[8];
            random.NextBytes(key);
            var value = NewValue(random);
            tree.Put(key, value);
            model[key] = value;
            keys.Add(key);
        }
        else if (roll < 75)
        {
            var key = keys[random.Next(keys.Count)];
            var value = NewValue(random); // another size: the node leaves and comes back
            tree.Put(key, value);
            model[key] = value;
        }
        else
        {
            var index = random.Next(keys.Count);
            var key = keys[index];
            keys[index] = keys[^1];
            keys.RemoveAt(keys.Count - 1);
            Assert.Equal(model.Remove(key), tree.Delete(key));
        }
    }

    /// <summary>Values of one size (holes fit exactly) or of many (holes that do not fit, compactions).</summary>
    private static byte[] NewValue(Random random)
    {
        var value = new byte[random.Next(3) == 0 ? 1_000 : random.Next(100, 2_500)];
        random.NextBytes(value);
        return value;
    }

    private static void CompareAll(StorageEnvironment env, SortedDictionary<byte[], byte[]> model, int seed, int step)
    {
        using var read = env.BeginRead();
        var tree = read.OpenTree("model");
        Assert.True((tree?.Count ?? 0) == model.Count, $"seed {seed} transaction {step}: count {tree?.Count} vs model {model.Count}");
        if (tree == null)
        {
            return;
        }

        var iterator = tree.Iterate();
        var more = iterator.SeekFirst();
        foreach (var (key, value) in model)
        {
            Assert.True(more, $"seed {seed} transaction {step}: store ended before key {Convert.ToHexString(key)}");
            Assert.True(iterator.Key.SequenceEqual(key) && iterator.Value.SequenceEqual(value),
                $"seed {seed} transaction {step}: entry {Convert.ToHexString(key)} differs");
            more = iterator.MoveNext();
        }

        Assert.False(more, $"seed {seed} transaction {step}: store has keys past the model's last");
    }
}
