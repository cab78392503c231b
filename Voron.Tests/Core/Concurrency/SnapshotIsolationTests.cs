namespace Voron.Tests.Core.Concurrency;

public sealed class SnapshotIsolationTests(ITestOutputHelper output)
{
    private static byte[] Key(int i)
    {
        var key = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(key, i);
        return key;
    }

    [Fact]
    public async Task Readers_keep_stable_snapshots_while_a_writer_commits_and_flushes()
    {
        var seed = TestSeed.Next(output, nameof(Readers_keep_stable_snapshots_while_a_writer_commits_and_flushes));
        using var fs = Engine.StoreFactory.NewFileSystem();
        var options = Engine.StoreFactory.Options(fs, backgroundFlush: true);
        options.FlushThresholdBytes = 256 * 1024;
        options.FlushInterval = TimeSpan.FromMilliseconds(5);
        using var env = StorageEnvironment.Open(options);
        const int keys = 2000;
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (var i = 0; i < keys; i++)
            {
                tree.Put(Key(i), BitConverter.GetBytes(0L));
            }

            tx.Commit();
        }

        // Every commit writes generation g into all keys of a random slice; a reader's snapshot
        // must show one generation per key that never changes while the reader lives, and the
        // sum over keys must equal what the writer recorded for that transaction id.
        var sums = new System.Collections.Concurrent.ConcurrentDictionary<long, long> { [env.LastCommittedTransactionId] = 0 };
        using var stop = new CancellationTokenSource();
        var writer = Task.Run(() =>
        {
            var random = new Random(seed);
            var current = new long[keys];
            for (var generation = 1; generation <= 300; generation++)
            {
                using var tx = env.BeginWrite();
                var tree = tx.CreateTree("t");
                var start = random.Next(keys);
                var count = random.Next(1, 400);
                for (var i = 0; i < count; i++)
                {
                    var k = (start + i) % keys;
                    current[k] = generation;
                    tree.Put(Key(k), BitConverter.GetBytes((long)generation));
                }

                var id = tx.Id;
                sums[id] = current.Sum();
                tx.Commit();
            }

            stop.Cancel();
        });

        var readers = Enumerable.Range(0, 2).Select(r => Task.Run(() =>
        {
            var checks = 0;
            while (!stop.IsCancellationRequested || checks == 0)
            {
                using var read = env.BeginRead();
                var tree = read.OpenTree("t")!;
                var first = ReadAll(tree);
                Thread.Yield();
                var second = ReadAll(tree);
                Assert.True(first.SequenceEqual(second), $"seed {seed}: a snapshot changed while its reader lived (tx {read.Id})");
                Assert.True(sums.TryGetValue(read.Id, out var expected) && expected == first.Sum(),
                    $"seed {seed}: snapshot {read.Id} sums to {first.Sum()}, the writer recorded {expected}");
                checks++;
            }

            return checks;
        })).ToArray();

        await writer;
        var counts = await Task.WhenAll(readers);
        output.WriteLine($"reader snapshots checked: {string.Join(", ", counts)}; flushed up to tx {env.LastFlushedTransactionId}");
        env.CheckIntegrity();
    }

    /// <summary>
    /// A cursor on a leaf in the data file's mapping keeps the leaf's address (BTreeCursor): the
    /// writer rewriting every value and the flusher writing the data file twice must not change
    /// what the positioned cursor reads next (PG1 in Paging/Pager.cs).
    /// </summary>
    [Fact]
    public void A_positioned_cursor_on_a_flushed_leaf_reads_its_snapshot_after_writes_and_flushes()
    {
        using var fs = Engine.StoreFactory.NewFileSystem();
        using var env = StorageEnvironment.Open(Engine.StoreFactory.Options(fs));
        const int keys = 3000;
        Write(env, generation: 1);
        env.FlushToDataFile();

        using var read = env.BeginRead();
        var iterator = read.OpenTree("t")!.Iterate();
        Assert.True(iterator.Seek(Key(10)));
        Assert.Equal(1L, BitConverter.ToInt64(iterator.Value));

        Write(env, generation: 2);
        env.FlushToDataFile();
        Write(env, generation: 3);
        env.FlushToDataFile();

        var seen = 1;
        while (iterator.MoveNext())
        {
            Assert.Equal(1L, BitConverter.ToInt64(iterator.Value));
            seen++;
        }

        Assert.Equal(keys - 10, seen);
        using var latest = env.BeginRead();
        Assert.True(latest.OpenTree("t")!.TryGet(Key(10), out var value));
        Assert.Equal(3L, BitConverter.ToInt64(value));

        static void Write(StorageEnvironment env, long generation)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("t");
            for (var i = 0; i < keys; i++)
            {
                tree.Put(Key(i), BitConverter.GetBytes(generation));
            }

            tx.Commit();
        }
    }

    private static long[] ReadAll(Tree tree)
    {
        var values = new long[tree.Count];
        var iterator = tree.Iterate();
        var i = 0;
        for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
        {
            values[i++] = BitConverter.ToInt64(iterator.Value);
        }

        return values;
    }

    [Fact]
    public void A_reader_never_sees_uncommitted_changes()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(Key(1), [1]);

        using (var read = env.BeginRead())
        {
            Assert.Null(read.OpenTree("t"));
        }

        tx.Commit();
        using var after = env.BeginRead();
        Assert.NotNull(after.OpenTree("t"));
    }

    [Fact]
    public async Task Write_transaction_can_cross_an_await_onto_another_thread()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using (var tx = await env.BeginWriteAsync())
        {
            tx.CreateTree("t").Put(Key(1), [1]);
            await Task.Yield();
            await Task.Delay(1);
            tx.CreateTree("t").Put(Key(2), [2]);
            tx.Commit();
        }

        using var read = env.BeginRead();
        Assert.Equal(2, read.OpenTree("t")!.Count);
    }
}
