namespace Voron.Tests.Core.Properties;

/// <summary>
/// Model-based tests: random operations against the store and against a plain sorted dictionary,
/// compared after every read, scan, commit, rollback, flush, reopen and crash-recovery.
/// </summary>
public sealed class StoreModelTests(ITestOutputHelper output)
{
    private sealed class ByteComparer : IComparer<byte[]>
    {
        public static readonly ByteComparer Instance = new();

        public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
    }

    [Fact]
    public void Random_operations_match_a_sorted_dictionary_across_commits_rollbacks_reopens_and_crashes()
    {
        var seed = TestSeed.Next(output, nameof(Random_operations_match_a_sorted_dictionary_across_commits_rollbacks_reopens_and_crashes));
        var random = new Random(seed);
        using var fs = Engine.StoreFactory.NewFileSystem();
        var env = StorageEnvironment.Open(Engine.StoreFactory.Options(fs, journalFileSize: 256 * 1024));
        var committed = new SortedDictionary<byte[], byte[]>(ByteComparer.Instance);
        var keys = new List<byte[]>();
        const int operations = 120_000;
        var done = 0;
        try
        {
            while (done < operations)
            {
                var working = new SortedDictionary<byte[], byte[]>(committed, ByteComparer.Instance);
                using (var tx = env.BeginWrite())
                {
                    var tree = tx.CreateTree("model");
                    var batch = random.Next(1, 200);
                    for (var i = 0; i < batch; i++, done++)
                    {
                        Step(random, tree, working, keys, seed, done);
                    }

                    if (random.Next(10) == 0)
                    {
                        continue; // rollback: dispose without commit
                    }

                    tx.Commit();
                    committed = working;
                }

                switch (random.Next(40))
                {
                    case 0:
                        env.Dispose();
                        env = StorageEnvironment.Open(Engine.StoreFactory.Options(fs, journalFileSize: 256 * 1024));
                        break;
                    case 1:
                        env.CloseWithoutFlush();
                        env = StorageEnvironment.Open(Engine.StoreFactory.Options(fs, journalFileSize: 256 * 1024));
                        break;
                    case 2 or 3 or 4:
                        env.FlushToDataFile();
                        break;
                    case 5:
                        env.CheckIntegrity();
                        break;
                }

                if (random.Next(20) == 0)
                {
                    CompareAll(env, committed, seed, done);
                }
            }

            CompareAll(env, committed, seed, done);
            env.CheckIntegrity();
            env.CloseWithoutFlush();
            env = StorageEnvironment.Open(Engine.StoreFactory.Options(fs, journalFileSize: 256 * 1024));
            CompareAll(env, committed, seed, done);
            env.CheckIntegrity();
        }
        finally
        {
            env.Dispose();
        }

        output.WriteLine($"{done} operations, {committed.Count} keys at the end");
    }

    private static void Step(Random random, Tree tree, SortedDictionary<byte[], byte[]> model, List<byte[]> keys, int seed, int step)
    {
        var roll = random.Next(100);
        if (roll < 40 || keys.Count == 0)
        {
            var key = NewKey(random);
            var value = NewValue(random);
            tree.Put(key, value);
            model[key] = value;
            keys.Add(key);
        }
        else if (roll < 60)
        {
            var key = keys[random.Next(keys.Count)];
            var value = NewValue(random);
            tree.Put(key, value);
            model[key] = value;
        }
        else if (roll < 75)
        {
            var key = keys[random.Next(keys.Count)];
            Assert.True(model.Remove(key) == tree.Delete(key), $"seed {seed} step {step}: delete result differs");
        }
        else if (roll < 92)
        {
            var key = random.Next(4) == 0 ? NewKey(random) : keys[random.Next(keys.Count)];
            var found = tree.TryGet(key, out var value);
            Assert.True(found == model.TryGetValue(key, out var expected), $"seed {seed} step {step}: presence differs");
            if (found)
            {
                Assert.True(value.SequenceEqual(expected), $"seed {seed} step {step}: value differs");
            }
        }
        else
        {
            RangeScan(random, tree, model, seed, step);
        }
    }

    private static void RangeScan(Random random, Tree tree, SortedDictionary<byte[], byte[]> model, int seed, int step)
    {
        var from = NewKey(random);
        var forward = random.Next(2) == 0;
        var take = random.Next(1, 50);
        var expected = (forward
                ? model.Keys.Where(k => ByteComparer.Instance.Compare(k, from) >= 0)
                : model.Keys.Reverse().Where(k => ByteComparer.Instance.Compare(k, from) <= 0))
            .Take(take).ToList();
        var iterator = tree.Iterate();
        var actual = new List<byte[]>();
        var more = forward ? iterator.Seek(from) : iterator.SeekForPrevious(from);
        while (more && actual.Count < take)
        {
            actual.Add(iterator.Key.ToArray());
            more = forward ? iterator.MoveNext() : iterator.MovePrevious();
        }

        Assert.True(expected.Count == actual.Count && expected.Zip(actual).All(p => p.First.AsSpan().SequenceEqual(p.Second)),
            $"seed {seed} step {step}: {(forward ? "forward" : "backward")} scan from {Convert.ToHexString(from)} differs");
    }

    private static void CompareAll(StorageEnvironment env, SortedDictionary<byte[], byte[]> model, int seed, int step)
    {
        using var read = env.BeginRead();
        var tree = read.OpenTree("model");
        Assert.True((tree?.Count ?? 0) == model.Count, $"seed {seed} step {step}: count {tree?.Count} vs model {model.Count}");
        if (tree == null)
        {
            return;
        }

        var iterator = tree.Iterate();
        var more = iterator.SeekFirst();
        foreach (var (key, value) in model)
        {
            Assert.True(more, $"seed {seed} step {step}: store ended before key {Convert.ToHexString(key)}");
            Assert.True(iterator.Key.SequenceEqual(key) && iterator.Value.SequenceEqual(value),
                $"seed {seed} step {step}: entry {Convert.ToHexString(key)} differs");
            more = iterator.MoveNext();
        }

        Assert.False(more, $"seed {seed} step {step}: store has keys past the model's last");
    }

    private static byte[] NewKey(Random random)
    {
        var length = random.Next(50) == 0 ? random.Next(1, Constants.MaxKeySize + 1) : random.Next(1, 24);
        var key = new byte[length];
        random.NextBytes(key);
        if (random.Next(2) == 0)
        {
            Encoding.ASCII.GetBytes("user/").AsSpan(0, Math.Min(5, length)).CopyTo(key);
        }

        return key;
    }

    private static byte[] NewValue(Random random)
    {
        var length = random.Next(100) switch
        {
            0 => random.Next(3000, 30_000),
            < 5 => random.Next(500, 3000),
            _ => random.Next(0, 120),
        };
        var value = new byte[length];
        random.NextBytes(value);
        return value;
    }
}
