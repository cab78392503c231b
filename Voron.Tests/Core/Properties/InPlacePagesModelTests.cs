using Voron.Flushing;

namespace Voron.Tests.Core.Properties;

/// <summary>
/// New pages written in place (Transactions/InPlacePages.cs, IP1–IP7) against a sorted
/// dictionary: bulk loads (in-order keys and overflow values, above the in-place threshold) mixed
/// with small random writes and deletes (journaled; they rewrite and free pages written in place,
/// whose runs are then allocated again), flushes, flushes that die after the data file's sync and
/// before the header (the replay then meets named pages a later record rewrote: R10), crashes
/// (the process dies with nothing flushed) and clean reopens. The store must equal the model
/// after every reopen and at random points, and pass its integrity check. The seed is printed and
/// VORON_SEED replays it.
/// </summary>
public sealed class InPlacePagesModelTests(ITestOutputHelper output)
{
    private sealed class ByteComparer : IComparer<byte[]>
    {
        public static readonly ByteComparer Instance = new();

        public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
    }

    private const long Threshold = 64 << 10;

    [Fact]
    public void Bulk_loads_mixed_with_random_writes_flushes_and_crashes_match_a_sorted_dictionary()
    {
        var seed = TestSeed.Next(output, nameof(Bulk_loads_mixed_with_random_writes_flushes_and_crashes_match_a_sorted_dictionary));
        var random = new Random(seed);
        using var fs = StoreFactory.NewFileSystem();
        var failFlush = false;
        StorageEnvironmentOptions Options()
        {
            var options = StoreFactory.Options(fs, journalFileSize: 256 * 1024);
            options.InPlaceNewPagesThreshold = Threshold;
            options.FlushHook = step =>
            {
                if (failFlush && step == FlushStep.DataSynced)
                {
                    throw new IOException("the process dies after the data file's sync, before the header");
                }
            };
            return options;
        }

        var env = StorageEnvironment.Open(Options());
        var model = new SortedDictionary<byte[], byte[]>(ByteComparer.Instance);
        var keys = new List<byte[]>();
        long inPlacePages = 0;
        var bulkLoads = 0;
        var step = 0;
        void Reopen(bool crash)
        {
            inPlacePages += env.InPlace.PagesWritten;
            if (crash)
            {
                env.CloseWithoutFlush();
            }
            else
            {
                env.Dispose();
            }

            failFlush = false;
            env = StorageEnvironment.Open(Options());
            Compare(env, model, seed, step);
        }

        try
        {
            for (; step < 300; step++)
            {
                var dice = random.Next(100);
                switch (dice)
                {
                    case < 25:
                        BulkLoad(env, random, model, keys, step);
                        bulkLoads++;
                        break;
                    case < 70:
                        RandomWrites(env, random, model, keys);
                        break;
                    case < 80:
                        env.FlushToDataFile();
                        break;
                    case < 85:
                        failFlush = true;
                        try
                        {
                            env.FlushToDataFile(); // fails the store after the data file's sync, when it has anything to write
                        }
                        catch (Exception e) when (e is IOException or EnvironmentFailedException)
                        {
                        }

                        Reopen(crash: true);
                        break;
                    case < 94:
                        Reopen(crash: true);
                        break;
                    default:
                        Reopen(crash: false);
                        break;
                }

                if (random.Next(10) == 0)
                {
                    Compare(env, model, seed, step);
                }
            }

            Reopen(crash: true);
            env.CheckIntegrity();
        }
        catch (Exception e) when (e is not Xunit.Sdk.XunitException)
        {
            throw new InvalidOperationException($"seed {seed}, step {step}: {e.Message}", e);
        }
        finally
        {
            env.Dispose();
        }

        output.WriteLine($"{bulkLoads} bulk loads, {inPlacePages} pages written in place, {model.Count} keys at the end");
        Assert.True(inPlacePages > 0, "the run never took the in-place path it is about");
    }

    /// <summary>One transaction: a run of new in-order keys (new leaves) and a few overflow values; above the threshold.</summary>
    private static void BulkLoad(StorageEnvironment env, Random random, SortedDictionary<byte[], byte[]> model, List<byte[]> keys, int step)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("model");
        var count = random.Next(300, 3000);
        for (var i = 0; i < count; i++)
        {
            var key = Encoding.UTF8.GetBytes($"bulk{step:D4}-{i:D5}");
            var value = new byte[random.Next(20, 200)];
            random.NextBytes(value);
            Put(tree, model, keys, key, value);
        }

        for (var i = random.Next(0, 6); i > 0; i--)
        {
            var key = Encoding.UTF8.GetBytes($"big{step:D4}-{i}");
            var value = new byte[random.Next(9_000, 60_000)];
            random.NextBytes(value);
            Put(tree, model, keys, key, value);
        }

        tx.Commit();
    }

    /// <summary>One small transaction: puts over existing and new keys, deletes (freeing pages, runs among them).</summary>
    private static void RandomWrites(StorageEnvironment env, Random random, SortedDictionary<byte[], byte[]> model, List<byte[]> keys)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("model");
        for (var i = random.Next(1, 40); i > 0; i--)
        {
            if (keys.Count > 0 && random.Next(3) == 0)
            {
                var index = random.Next(keys.Count);
                var key = keys[index];
                keys[index] = keys[^1];
                keys.RemoveAt(keys.Count - 1);
                if (model.Remove(key))
                {
                    tree.Delete(key);
                }

                continue;
            }

            var target = keys.Count > 0 && random.Next(2) == 0 ? keys[random.Next(keys.Count)] : Encoding.UTF8.GetBytes($"r{random.Next(100_000):D6}");
            var value = new byte[random.Next(10) == 0 ? random.Next(9_000, 30_000) : random.Next(1, 300)];
            random.NextBytes(value);
            Put(tree, model, keys, target, value);
        }

        tx.Commit();
    }

    private static void Put(Tree tree, SortedDictionary<byte[], byte[]> model, List<byte[]> keys, byte[] key, byte[] value)
    {
        tree.Put(key, value);
        if (model.TryAdd(key, value))
        {
            keys.Add(key);
        }
        else
        {
            model[key] = value;
        }
    }

    private static void Compare(StorageEnvironment env, SortedDictionary<byte[], byte[]> model, int seed, int step)
    {
        using var read = env.BeginRead();
        var tree = read.OpenTree("model");
        if (tree == null)
        {
            Assert.True(model.Count == 0, $"seed {seed}, step {step}: the tree is missing but the model holds {model.Count} keys");
            return;
        }

        Assert.True(model.Count == tree.Count, $"seed {seed}, step {step}: {tree.Count} keys in the store, {model.Count} in the model");
        foreach (var (key, value) in model)
        {
            var stored = tree.Get(key);
            Assert.True(stored != null && stored.AsSpan().SequenceEqual(value), $"seed {seed}, step {step}: key {Encoding.UTF8.GetString(key)} differs");
        }
    }
}
