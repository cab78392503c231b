using System.Buffers.Binary;
using System.Diagnostics;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Measurement;
using Voron.Platform.Posix;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// One run of the sections experiment's random-write workload on a fresh store with one
/// allocation policy. Keys are random 16-byte numbers (big-endian, so key order is numeric order),
/// values random bytes of <see cref="Shape.ValueSize"/>, <see cref="Shape.ValuesPerTransaction"/>
/// operations per durable transaction:
/// <list type="number">
/// <item>load: <see cref="Shape.LoadTransactions"/> transactions of inserts;</item>
/// <item>churn: <see cref="Shape.ChurnTransactions"/> transactions of 45% inserts, 30% updates
///   (a new value for an existing key) and 25% deletes, with every 20th transaction deleting a
///   run of as many consecutive keys instead — so pages are freed all over the file while the
///   data grows slowly, as in a live store.</item>
/// </list>
/// The data file is flushed after every <see cref="Shape.FlushTransactions"/> commits, so every
/// policy flushes after exactly the same changes (each flush of random-100b covers some 200-300
/// pages); or, when that is 0, after any commit that leaves at least <see cref="Shape.FlushPages"/>
/// pages unflushed. The sequence of operations depends only on the seed: every policy gets
/// exactly the same data.
/// </summary>
internal static class SectionsWorkload
{
    internal const string LoadPhase = "load";
    internal const string ChurnPhase = "churn";

    /// <summary>What to run. <paramref name="Sequential"/> keys count up instead of being random (load only).</summary>
    internal sealed record Shape(string Name, int LoadTransactions, int ChurnTransactions, int ValueSize,
        int ValuesPerTransaction = 100, int FlushTransactions = 0, int FlushPages = 200, bool Sequential = false);

    internal sealed record FlushPoint(string Phase, FlushStatistics Statistics);

    internal sealed record Result(string Workload, AllocationPolicy Policy, List<FlushPoint> Flushes, long JournalBytes, long DataFileBytes,
        IntegrityReport Integrity, TimeSpan Elapsed);

    public static Result Run(ExperimentContext context, Shape shape, AllocationPolicy policy, int seed)
    {
        var directory = context.NewDirectory($"{shape.Name}-{policy}".ToLowerInvariant());
        var files = new CountingFileSystem(PosixFileSystem.Instance);
        var options = StorageEnvironmentOptions.ForFileSystem(directory, context.Disk.Wrap(files));
        options.AllocationPolicy = policy;
        options.BackgroundFlush = false; // flushes happen exactly where the workload says
        var flushes = new List<FlushPoint>();
        var phase = LoadPhase;
        options.OnFlush = statistics => flushes.Add(new FlushPoint(phase, statistics));

        var watch = Stopwatch.StartNew();
        var random = new Random(seed);
        var keys = new KeySet();
        IntegrityReport integrity;
        using (var env = StorageEnvironment.Open(options))
        {
            UInt128 next = 0;
            for (var t = 0; t < shape.LoadTransactions; t++)
            {
                Commit(env, shape, tree =>
                {
                    for (var i = 0; i < shape.ValuesPerTransaction; i++)
                    {
                        var key = shape.Sequential ? next++ : RandomKey(random);
                        tree.Put(Bytes(key), Value(random, shape.ValueSize));
                        keys.Add(key);
                    }
                });
                Progress(context, shape, policy, LoadPhase, t, shape.LoadTransactions, flushes);
            }

            phase = shape.ChurnTransactions > 0 ? ChurnPhase : LoadPhase;
            for (var t = 0; t < shape.ChurnTransactions; t++)
            {
                var rangeDelete = t % 20 == 19;
                Commit(env, shape, tree =>
                {
                    if (rangeDelete)
                    {
                        DeleteRange(tree, keys, random, shape.ValuesPerTransaction);
                        return;
                    }

                    for (var i = 0; i < shape.ValuesPerTransaction; i++)
                    {
                        Churn(tree, keys, random, shape.ValueSize);
                    }
                });
                Progress(context, shape, policy, ChurnPhase, t, shape.ChurnTransactions, flushes);
            }

            env.FlushToDataFile();
            integrity = env.CheckIntegrity();
            using var read = env.BeginRead();
            var count = read.OpenTree("data")?.Count ?? 0;
            if (count != keys.Count)
            {
                throw new InvalidOperationException($"{shape.Name}/{policy}: the tree holds {count} entries, the workload expected {keys.Count}.");
            }
        }

        var journal = files.BytesWritten(p => p.EndsWith(".journal", StringComparison.Ordinal));
        var data = files.BytesWritten(p => p.EndsWith("voron.data", StringComparison.Ordinal));
        return new Result(shape.Name, policy, flushes, journal, data, integrity, watch.Elapsed);
    }

    private static void Commit(StorageEnvironment env, Shape shape, Action<Tree> work)
    {
        long id;
        using (var tx = env.BeginWrite())
        {
            work(tx.CreateTree("data"));
            tx.Commit();
            id = tx.Id;
        }

        var due = shape.FlushTransactions > 0 ? id % shape.FlushTransactions == 0 : env.PageTable.PageCount >= shape.FlushPages;
        if (due)
        {
            env.FlushToDataFile();
        }
    }

    private static void Churn(Tree tree, KeySet keys, Random random, int valueSize)
    {
        var roll = random.Next(100);
        if (roll < 45 || keys.Count == 0)
        {
            var key = RandomKey(random);
            tree.Put(Bytes(key), Value(random, valueSize));
            keys.Add(key);
        }
        else if (roll < 75)
        {
            tree.Put(Bytes(keys.Pick(random)), Value(random, valueSize));
        }
        else
        {
            var key = keys.Pick(random);
            tree.Delete(Bytes(key));
            keys.Remove(key);
        }
    }

    /// <summary>Deletes up to <paramref name="count"/> consecutive keys from a random existing one.</summary>
    private static void DeleteRange(Tree tree, KeySet keys, Random random, int count)
    {
        if (keys.Count == 0)
        {
            return;
        }

        var doomed = new List<UInt128>(count);
        var iterator = tree.Iterate();
        for (var more = iterator.Seek(Bytes(keys.Pick(random))); more && doomed.Count < count; more = iterator.MoveNext())
        {
            doomed.Add(BinaryPrimitives.ReadUInt128BigEndian(iterator.Key));
        }

        foreach (var key in doomed)
        {
            tree.Delete(Bytes(key));
            keys.Remove(key);
        }
    }

    private static void Progress(ExperimentContext context, Shape shape, AllocationPolicy policy, string phase, int t, int total, List<FlushPoint> flushes)
    {
        var step = Math.Max(1, total / 4);
        if ((t + 1) % step == 0 || t + 1 == total)
        {
            var recent = flushes.TakeLast(20).ToList();
            var seeks = recent.Count == 0 ? 0 : recent.Average(f => f.Statistics.Seeks);
            var pages = recent.Count == 0 ? 0 : recent.Average(f => f.Statistics.Pages);
            context.Progress($"{shape.Name,-14} {policy,-8} {phase,-5} {t + 1,6:N0}/{total:N0} tx, {flushes.Count,5:N0} flushes, last 20: {seeks,6:F1} seeks, {pages,6:F1} pages");
        }
    }

    private static UInt128 RandomKey(Random random)
    {
        Span<byte> bytes = stackalloc byte[16];
        random.NextBytes(bytes);
        return BinaryPrimitives.ReadUInt128BigEndian(bytes);
    }

    private static byte[] Bytes(UInt128 key)
    {
        var bytes = new byte[16];
        BinaryPrimitives.WriteUInt128BigEndian(bytes, key);
        return bytes;
    }

    private static byte[] Value(Random random, int size)
    {
        var value = new byte[size];
        random.NextBytes(value);
        return value;
    }

    /// <summary>The live keys, with O(1) add, remove and uniform random pick.</summary>
    private sealed class KeySet
    {
        private readonly List<UInt128> _keys = [];
        private readonly Dictionary<UInt128, int> _index = [];

        public int Count => _keys.Count;

        public void Add(UInt128 key)
        {
            if (_index.TryAdd(key, _keys.Count))
            {
                _keys.Add(key);
            }
        }

        public void Remove(UInt128 key)
        {
            if (!_index.Remove(key, out var at))
            {
                return;
            }

            var last = _keys[^1];
            _keys.RemoveAt(_keys.Count - 1);
            if (at < _keys.Count)
            {
                _keys[at] = last;
                _index[last] = at;
            }
        }

        public UInt128 Pick(Random random) => _keys[random.Next(_keys.Count)];
    }
}
