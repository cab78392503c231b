using Voron.Flushing;

namespace Voron.Tests.Core.Crash;

/// <summary>
/// A reader racing a flush at every point of the flush (FL1 in Flushing/DataFileFlusher.cs,
/// PT3 and PT4 in Transactions/PageTable.cs): readers that begin or end, and commits that land,
/// while a flush is paused at each of its steps (FlushStep) must leave every reader reading
/// exactly its snapshot — from the page table or from the data file — during the flush, after
/// it, and after later flushes.
/// </summary>
public sealed class ReaderFlushRaceTests(ITestOutputHelper output)
{
    private const int Keys = 400; // several leaf pages and a branch
    private static readonly byte[] BigKey = "big"u8.ToArray();

    public static TheoryData<string, bool> Points()
    {
        var data = new TheoryData<string, bool>();
        foreach (var step in Enum.GetNames<FlushStep>())
        {
            data.Add(step, false);
            data.Add(step, true);
        }

        return data;
    }

    /// <summary>
    /// Regression: the flush read the oldest live reader before it took the batch of unflushed
    /// commits, so a reader that began at N in that gap, while N + 1 committed, was not counted:
    /// the flush wrote N + 1's pages to the data file and dropped them from the page table, and
    /// the reader read N + 1's bytes (here: generation 3 instead of 2). The horizon is now fixed
    /// in one step, under the readers' lock, as the smaller of the last published commit and the
    /// oldest reader (FL1), and the batch never goes past it.
    /// </summary>
    [Theory]
    [MemberData(nameof(Points))]
    public async Task Readers_that_begin_or_end_at_any_step_of_a_flush_read_exactly_their_snapshot(string stepName, bool olderReader)
    {
        var step = Enum.Parse<FlushStep>(stepName);
        var options = StoreFactory.Options(StoreFactory.NewFileSystem());
        using var reached = new ManualResetEventSlim();
        using var go = new ManualResetEventSlim();
        var armed = 0;
        options.FlushHook = at =>
        {
            if (at == step && Interlocked.Exchange(ref armed, 0) == 1)
            {
                reached.Set();
                Assert.True(go.Wait(TimeSpan.FromSeconds(30)), "the test releases the flush");
            }
        };

        using var env = StorageEnvironment.Open(options);
        CommitGeneration(env, 1);
        var older = olderReader ? env.BeginRead() : null; // sees generation 1; ends while the flush is paused
        CommitGeneration(env, 2);

        Interlocked.Exchange(ref armed, 1);
        var flush = Task.Run(env.FlushToDataFile);
        Assert.True(reached.Wait(TimeSpan.FromSeconds(30)), $"the flush reached {step}");

        var atTwo = env.BeginRead();
        CommitGeneration(env, 3);
        var atThree = env.BeginRead();
        CommitGeneration(env, 4);
        if (older != null)
        {
            Expect(older, 1, step, "the older reader, before it ends");
            older.Dispose();
        }

        go.Set();
        await flush;

        Expect(atTwo, 2, step, "right after the flush");
        Expect(atThree, 3, step, "right after the flush");
        env.FlushToDataFile();
        env.FlushToDataFile();
        Expect(atTwo, 2, step, "after two more flushes");
        Expect(atThree, 3, step, "after two more flushes");
        atTwo.Dispose();
        env.FlushToDataFile();
        Expect(atThree, 3, step, "after the oldest reader ended and another flush");
        atThree.Dispose();
        env.FlushToDataFile();

        using (var latest = env.BeginRead())
        {
            Expect(latest, 4, step, "a new reader after everything was flushed");
        }

        Assert.Equal(env.LastCommittedTransactionId, env.LastFlushedTransactionId);
        env.CheckIntegrity();
    }

    /// <summary>
    /// Readers, a writer and a flusher at random speeds, the flusher yielding or sleeping at
    /// random steps of each flush: every snapshot sums to what the writer recorded for it, for as
    /// long as it lives. Then the machine loses power and recovery must keep every commit (the
    /// crash oracle). <c>VORON_SOAK</c> raises the rounds.
    /// </summary>
    [Fact]
    public void Readers_racing_flushes_at_random_steps_keep_their_snapshots_and_a_power_loss_keeps_every_commit()
    {
        var seed = TestSeed.Next(output, nameof(Readers_racing_flushes_at_random_steps_keep_their_snapshots_and_a_power_loss_keeps_every_commit));
        var rounds = CrashBudget.Count(6, 0.0005);
        var failures = new List<string>();
        long states = 0;
        for (var round = 0; round < rounds && failures.Count == 0; round++)
        {
            states += RandomRace(CrashHarness.StateSeed(seed, nameof(RandomRace), round), failures);
        }

        CrashBudget.Report(output, $"{rounds} rounds of readers racing flushes", states, failures);
    }

    private static int RandomRace(int seed, List<string> failures)
    {
        using var machine = CrashHarness.Start(seed, out var model);
        var random = new Random(seed);
        var hookRandom = new Random(seed ^ 0x5bd1e995);
        var run = new CrashRun(machine, model, o =>
        {
            o.FlushHook = _ =>
            {
                int pause;
                lock (hookRandom)
                {
                    pause = hookRandom.Next(8);
                }

                if (pause == 0)
                {
                    Thread.Sleep(1);
                }
                else if (pause < 3)
                {
                    Thread.Yield();
                }
            };
        });
        run.Open();
        var sums = new System.Collections.Concurrent.ConcurrentDictionary<long, long>();
        var values = new long[Keys];
        run.Commit([.. Enumerable.Range(0, Keys).Select(k => Change.Put("t", KeyName(k), Value(0)))]);
        sums[run.Environment.LastCommittedTransactionId] = 0;
        using var stop = new CancellationTokenSource();
        var errors = new System.Collections.Concurrent.ConcurrentQueue<string>();
        var flusher = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                run.Flush();
            }
        });
        var readers = Enumerable.Range(0, 2).Select(r => Task.Run(() =>
        {
            var local = new Random(seed + r + 1);
            var held = new List<(ReadTransaction Read, long Sum)>();
            while (!stop.IsCancellationRequested)
            {
                var read = run.Environment.BeginRead();
                held.Add((read, Sum(read)));
                foreach (var (h, sum) in held)
                {
                    var now = Sum(h);
                    if (now != sum || !sums.TryGetValue(h.Id, out var expected) || expected != now)
                    {
                        errors.Enqueue($"seed {seed}: snapshot {h.Id} sums to {now} (first read {sum}), the writer recorded {(sums.TryGetValue(h.Id, out var e) ? e : -1)}");
                    }
                }

                if (held.Count > local.Next(1, 4))
                {
                    var victim = local.Next(held.Count);
                    held[victim].Read.Dispose();
                    held.RemoveAt(victim);
                }
            }

            foreach (var (h, _) in held)
            {
                h.Dispose();
            }
        })).ToList();

        for (var generation = 1; generation <= 60; generation++)
        {
            var changes = new List<Change>();
            var start = random.Next(Keys);
            var count = random.Next(1, 120);
            for (var i = 0; i < count; i++)
            {
                var k = (start + i) % Keys;
                values[k] = generation;
                changes.Add(Change.Put("t", KeyName(k), Value(generation)));
            }

            var id = run.Environment.LastCommittedTransactionId + 1;
            sums[id] = values.Sum();
            run.Commit([.. changes]);
        }

        stop.Cancel();
        Task.WaitAll([flusher, .. readers]);
        failures.AddRange(errors.Take(5));
        run.Finish(CrashHarness.SettleTimeout);
        using var crashed = machine.AfterPowerLoss(PowerLossPolicy.Random(seed));
        try
        {
            CrashVerifier.Verify(crashed, model, null, reopen: false);
        }
        catch (CrashCheckException e)
        {
            failures.Add($"seed {seed}, after a power loss: {e.Message}");
        }

        return 1;
    }

    private static string KeyName(int k) => $"k{k:D4}";

    private static byte[] Value(long generation)
    {
        var value = new byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(value, generation);
        return value;
    }

    private static long Sum(ReadTransaction read)
    {
        var tree = read.OpenTree("t")!;
        long sum = 0;
        var it = tree.Iterate();
        for (var more = it.SeekFirst(); more; more = it.MoveNext())
        {
            sum += BinaryPrimitives.ReadInt64LittleEndian(it.Value);
        }

        return sum;
    }

    private static byte[] Key(int i)
    {
        var key = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(key, i);
        return key;
    }

    /// <summary>Every key and the overflow value hold <paramref name="generation"/>.</summary>
    private static void CommitGeneration(StorageEnvironment env, int generation)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (var i = 0; i < Keys; i++)
        {
            tree.Put(Key(i), BitConverter.GetBytes((long)generation));
        }

        var big = new byte[20_000];
        big.AsSpan().Fill((byte)generation);
        tree.Put(BigKey, big);
        tx.Commit();
    }

    private static void Expect(ReadTransaction read, int generation, FlushStep step, string when)
    {
        var tree = read.OpenTree("t")!;
        for (var i = 0; i < Keys; i++)
        {
            Assert.True(tree.TryGet(Key(i), out var value), $"{step}, {when}: key {i} is missing");
            var seen = BitConverter.ToInt64(value);
            Assert.True(seen == generation, $"{step}, {when}: the reader of generation {generation} (tx {read.Id}) read generation {seen} at key {i}");
        }

        Assert.True(tree.TryGet(BigKey, out var bigValue));
        Assert.True(bigValue.Length == 20_000 && !bigValue.ContainsAnyExcept((byte)generation),
            $"{step}, {when}: the reader of generation {generation} read another version of the overflow value");
    }
}
