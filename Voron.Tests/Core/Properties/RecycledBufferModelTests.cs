using System.Text;
using Voron.Testing;
using Voron.Tests.Core.Engine;

namespace Voron.Tests.Core.Properties;

/// <summary>
/// PB1 under load, against a model: merged async commits (writer batches and caller-run ones,
/// operations that fail on purpose: M1), an explicit write transaction cutting in, flushes, and a
/// page-version budget of a few pages (most commits spill: PT8) while readers hold snapshots and
/// spans across all of it. Every read a reader makes is compared with the state the model gives
/// for its snapshot, and the spans it took first must be unchanged when it ends. A buffer handed
/// out too early shows as a wrong read here, and in Debug builds the pool's ledger (PB5) throws at
/// the move itself. Each caller decides from the seed when to hold a reader across its next
/// operations and when to flush, so the run makes the same steps whatever the machine's load;
/// only their interleaving is the machine's.
/// </summary>
public sealed class RecycledBufferModelTests(ITestOutputHelper output)
{
    private const int Callers = 3;
    private const int OperationsPerCaller = 60;
    private const int KeysPerCaller = 12;
    private const int ExplicitCommits = 25;
    private const int ExplicitKey = 900;
    private static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(120);

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Readers_see_their_snapshots_while_buffers_are_recycled_under_merged_async_commits_flushes_and_spills(bool callerRuns)
    {
        var seed = TestSeed.Next(output, $"{nameof(Readers_see_their_snapshots_while_buffers_are_recycled_under_merged_async_commits_flushes_and_spills)}({callerRuns})");
        using var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs);
        options.AsyncCommit = true;
        options.CallerRuns = callerRuns;
        options.MaxBatchOperations = 4;
        options.MaxPageVersionMemory = 6 * Constants.PageSize; // PT8: most commits spill (and the pool keeps six buffers: PB3)
        using var env = StorageEnvironment.Open(options);
        var committed = new List<(long TxId, int Key, byte[] Value)>(); // acknowledged changes; under its own lock
        var reads = new List<(long Snapshot, Dictionary<int, byte[]> Seen)>(); // under its own lock

        var callers = Enumerable.Range(0, Callers).Select(caller => Task.Run(async () =>
        {
            var random = new Random(unchecked(seed + caller));
            HeldReader? held = null;
            for (var i = 0; i < OperationsPerCaller; i++)
            {
                if (held == null && random.Next(4) == 0)
                {
                    held = new HeldReader(env, random, random.Next(1, 6)); // lives across this caller's next operations
                }

                var key = (caller * 100) + random.Next(KeysPerCaller);
                var value = Value(key, i, random.Next(40, 900));
                var fail = random.Next(5) == 0;
                long txId = 0;
                try
                {
                    await env.ExecuteAsync(tx =>
                    {
                        tx.CreateTree("t").Put(Key(key), value);
                        txId = tx.Id;
                        if (fail)
                        {
                            throw new InvalidOperationException("fails on purpose (M1)");
                        }
                    }).WaitAsync(HangGuard);
                    lock (committed)
                    {
                        committed.Add((txId, key, value));
                    }
                }
                catch (InvalidOperationException) when (fail)
                {
                    // M1: its change never shows
                }

                if (random.Next(6) == 0)
                {
                    env.FlushToDataFile(); // removes versions up to the oldest reader, then releases buffers (PT9)
                }

                if (held != null && held.Step())
                {
                    Record(reads, held);
                    held = null;
                }
            }

            if (held != null)
            {
                held.End();
                Record(reads, held);
            }
        })).ToList();

        var explicitWriter = Task.Run(() =>
        {
            var random = new Random(unchecked(seed + 50));
            for (var i = 0; i < ExplicitCommits; i++)
            {
                var key = ExplicitKey + random.Next(KeysPerCaller);
                var value = Value(key, i, random.Next(40, 900));
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(Key(key), value);
                var id = tx.Id;
                tx.Commit();
                lock (committed)
                {
                    committed.Add((id, key, value));
                }

                if (random.Next(4) == 0)
                {
                    env.FlushToDataFile();
                }
            }
        });

        await Task.WhenAll([.. callers, explicitWriter]).WaitAsync(HangGuard);
        var reusedUnderLoad = env.PageTable.Buffers.Reused;

        var history = committed.GroupBy(c => c.TxId).OrderBy(g => g.Key).ToList();
        Assert.NotEmpty(reads);
        foreach (var (snapshot, seen) in reads)
        {
            var expected = new Dictionary<int, byte[]>();
            foreach (var transaction in history.TakeWhile(g => g.Key <= snapshot))
            {
                foreach (var (_, key, value) in transaction)
                {
                    expected[key] = value;
                }
            }

            Assert.True(expected.Count == seen.Count && expected.All(e => seen.TryGetValue(e.Key, out var v) && v.SequenceEqual(e.Value)),
                $"seed {seed}: a reader at snapshot {snapshot} read {seen.Count} keys, the model has {expected.Count}, or a value differs");
        }

        // Nobody is live now: this flush releases what is retired, and the commit after it takes a recycled buffer.
        env.FlushToDataFile();
        await env.ExecuteAsync(tx => tx.CreateTree("t").Put(Key(ExplicitKey), Value(ExplicitKey, -1, 100))).WaitAsync(HangGuard);
        Assert.True(env.PageTable.Buffers.Reused > 0, $"seed {seed}: no buffer was recycled; the pool is off");
        env.CheckIntegrity();
        output.WriteLine($"commits {env.LastCommittedTransactionId}, snapshots checked {reads.Count}, buffers reused while readers and commits ran {reusedUnderLoad}, spilled bytes written {env.PageTable.Scratch.WrittenBytes}");
    }

    private static void Record(List<(long, Dictionary<int, byte[]>)> reads, HeldReader held)
    {
        lock (reads)
        {
            reads.Add((held.Snapshot, held.First));
        }
    }

    /// <summary>
    /// A reader that reads every key, holds spans to two values, and lives for a number of its
    /// caller's operations; when it ends, the spans and a second read must match its first read.
    /// The spans are taken again at each step (a span cannot live in a field): each must equal what
    /// the first read copied.
    /// </summary>
    private sealed class HeldReader
    {
        private readonly ReadTransaction _reader;
        private readonly int[] _held;
        private int _steps;

        public HeldReader(StorageEnvironment env, Random random, int steps)
        {
            _reader = env.BeginRead();
            _steps = steps;
            var tree = _reader.OpenTree("t");
            First = tree == null ? [] : ReadAll(tree);
            _held = [.. First.Keys.OrderBy(_ => random.Next()).Take(2)];
        }

        public long Snapshot => _reader.Id;

        public Dictionary<int, byte[]> First { get; }

        /// <summary>Checks the held values after one more of its caller's operations; true when it ended.</summary>
        public bool Step()
        {
            var tree = _reader.OpenTree("t");
            foreach (var key in _held)
            {
                Assert.True(tree!.TryGet(Key(key), out var value) && value.SequenceEqual(First[key]), $"snapshot {Snapshot}: key {key} changed while its reader was live (PB1)");
            }

            if (--_steps > 0)
            {
                return false;
            }

            End();
            return true;
        }

        public void End()
        {
            var tree = _reader.OpenTree("t");
            var second = tree == null ? [] : ReadAll(tree);
            Assert.True(second.Count == First.Count && second.All(e => First[e.Key].SequenceEqual(e.Value)), $"snapshot {Snapshot}: two reads of one snapshot differ");
            _reader.Dispose();
        }
    }

    private static Dictionary<int, byte[]> ReadAll(Tree tree)
    {
        var seen = new Dictionary<int, byte[]>();
        foreach (var key in Enumerable.Range(0, Callers).SelectMany(c => Enumerable.Range(c * 100, KeysPerCaller)).Concat(Enumerable.Range(ExplicitKey, KeysPerCaller)))
        {
            if (tree.TryGet(Key(key), out var value))
            {
                seen[key] = value.ToArray();
            }
        }

        return seen;
    }

    private static byte[] Key(int key) => Encoding.ASCII.GetBytes($"k{key:D4}");

    private static byte[] Value(int key, int version, int length) => Encoding.ASCII.GetBytes($"{key}@{version}:".PadRight(length, (char)('a' + ((version + 26) % 26))));
}
