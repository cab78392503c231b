using System.Text;
using Voron.Testing;
using Voron.Tests.Core.Engine;

namespace Voron.Tests.Core.Properties;

/// <summary>
/// PB1 under load, against a model: merged async commits (writer batches and caller-run ones,
/// operations that fail on purpose: M1), explicit write transactions cutting in, flushes, and a
/// page-version budget of a few pages (every commit spills: PT8) while readers hold snapshots and
/// spans across all of it. Every read a reader makes is compared with the state the model gives
/// for its snapshot, and the spans it took first must be unchanged when it ends. A buffer handed
/// out too early shows as a wrong read here, and in Debug builds the pool's ledger (PB5) throws at
/// the move itself. The random choices replay from the printed seed; the interleaving is the
/// machine's.
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
        var reads = new List<(long Snapshot, Dictionary<int, byte[]> Seen, string Where)>(); // under its own lock
        using var done = new CancellationTokenSource();

        var callers = Enumerable.Range(0, Callers).Select(caller => Task.Run(async () =>
        {
            var random = new Random(unchecked(seed + caller));
            for (var i = 0; i < OperationsPerCaller; i++)
            {
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
                }
                catch (InvalidOperationException) when (fail)
                {
                    continue;
                }

                lock (committed)
                {
                    committed.Add((txId, key, value));
                }
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
            }
        });

        var flusher = Task.Run(() =>
        {
            while (!done.IsCancellationRequested)
            {
                env.FlushToDataFile();
                Thread.Yield();
            }
        });

        var readers = Enumerable.Range(0, 2).Select(r => Task.Run(() =>
        {
            var random = new Random(unchecked(seed + 100 + r));
            while (!done.IsCancellationRequested)
            {
                if (random.Next(3) == 0)
                {
                    HoldSnapshot(env, random, reads);
                }

                for (var spins = random.Next(1, 50); spins > 0; spins--)
                {
                    Thread.Yield(); // no snapshot held: flushes may release buffers meanwhile
                }
            }
        })).ToList();

        try
        {
            await Task.WhenAll([.. callers, explicitWriter]).WaitAsync(HangGuard);
        }
        finally
        {
            await done.CancelAsync();
            await Task.WhenAll([flusher, .. readers]).WaitAsync(HangGuard);
        }

        var history = committed.GroupBy(c => c.TxId).OrderBy(g => g.Key).ToList();
        Assert.True(reads.Count > 0, $"seed {seed}: no reader finished");
        foreach (var (snapshot, seen, where) in reads)
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
                $"seed {seed}: a reader at snapshot {snapshot} ({where}) read {seen.Count} keys, the model has {expected.Count}, or a value differs");
        }

        env.CheckIntegrity();
        output.WriteLine($"commits {env.LastCommittedTransactionId}, snapshots checked {reads.Count}, buffers reused {env.PageTable.Buffers.Reused}, spilled bytes written {env.PageTable.Scratch.WrittenBytes}");
        Assert.True(env.PageTable.Buffers.Reused > 0, $"seed {seed}: no buffer was recycled; the test did not exercise the pool");
    }

    /// <summary>One reader: reads every key, holds spans to a few, lets commits and flushes pass, reads again; both reads must match and the spans must not change.</summary>
    private static void HoldSnapshot(StorageEnvironment env, Random random, List<(long, Dictionary<int, byte[]>, string)> reads)
    {
        using var reader = env.BeginRead();
        var tree = reader.OpenTree("t");
        if (tree == null)
        {
            Thread.Yield();
            return;
        }

        var first = ReadAll(tree);
        var held = first.Keys.OrderBy(_ => random.Next()).Take(2).ToArray();
        var a = held.Length > 0 && tree.TryGet(Key(held[0]), out var x) ? x : default;
        var b = held.Length > 1 && tree.TryGet(Key(held[1]), out var y) ? y : default;
        for (var spins = random.Next(1, 20); spins > 0; spins--)
        {
            Thread.Yield(); // commits, flushes and spills go on under this snapshot
        }

        Assert.True(held.Length < 1 || a.SequenceEqual(first[held[0]]), $"snapshot {reader.Id}: a held span changed while its reader was live (PB1)");
        Assert.True(held.Length < 2 || b.SequenceEqual(first[held[1]]), $"snapshot {reader.Id}: a held span changed while its reader was live (PB1)");
        var second = ReadAll(tree);
        Assert.True(second.Count == first.Count && second.All(e => first[e.Key].SequenceEqual(e.Value)), $"snapshot {reader.Id}: two reads of one snapshot differ");
        lock (reads)
        {
            reads.Add((reader.Id, first, "first read"));
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

    private static byte[] Value(int key, int version, int length) => Encoding.ASCII.GetBytes($"{key}@{version}:".PadRight(length, (char)('a' + (version % 26))));
}
