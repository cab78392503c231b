using Voron.Testing;
using Voron.Transactions;

namespace Voron.Tests.Core.Scratch;

/// <summary>
/// Recycled page buffers (Transactions/PageBufferPool.cs PB1–PB5, PageTable PT9): a buffer that
/// left the page table goes to a new copy only after every transaction that could have found it
/// has ended. Debug builds poison released buffers (PB4), so a span a reader still held would
/// read 0xDB bytes here (or another page's bytes, once the buffer is reused).
/// </summary>
public sealed class PageBufferPoolTests(ITestOutputHelper output)
{
    [Fact]
    public void A_retired_buffer_waits_for_every_generation_up_to_its_own_then_is_handed_out()
    {
        var pool = new PageBufferPool(capacity: 4);
        var buffer = new byte[Constants.PageSize];
        pool.Retire(buffer, generation: 5);

        pool.ReleaseRetired(oldestLiveGeneration: 5); // a transaction of generation 5 may hold it
        Assert.Equal(1, pool.RetiredCount);
        Assert.NotSame(buffer, pool.Rent());

        pool.ReleaseRetired(oldestLiveGeneration: 6);
        Assert.Equal(0, pool.RetiredCount);
#if DEBUG
        Assert.True(buffer.AsSpan().IndexOfAnyExcept(PageBufferPool.Poison) < 0, "PB4: a released buffer is poisoned in Debug builds");
#endif
        Assert.Same(buffer, pool.Rent());
        Assert.Equal(1, pool.Reused);
    }

    [Fact]
    public void Runs_come_back_for_copies_of_their_size_and_longer_runs_are_left_to_the_collector()
    {
        var pool = new PageBufferPool(capacity: 8);
        var run = new byte[3 * Constants.PageSize];
        pool.Retire(new byte[(PageBufferPool.MaxPooledRunPages + 1) * Constants.PageSize], generation: 0); // PB2: too long
        Assert.Equal(0, pool.RetiredCount);
        pool.Retire(run, generation: 0);
        pool.ReleaseRetired(long.MaxValue);
        Assert.Equal(1, pool.FreeCount);
        Assert.Equal(2 * Constants.PageSize, pool.Rent(2).Length); // another size: a new allocation
        Assert.Same(run, pool.Rent(3));

        // PB3 counts pages: three 3-page runs do not fit 8 pages, the oldest is dropped.
        var runs = Enumerable.Range(0, 3).Select(_ => new byte[3 * Constants.PageSize]).ToArray();
        foreach (var buffer in runs)
        {
            pool.Retire(buffer, generation: 0);
        }

        Assert.Equal(2, pool.RetiredCount);
    }

    [Fact]
    public void Single_pages_are_bounded_on_both_lists()
    {
        var pool = new PageBufferPool(capacity: 2);

        var buffers = Enumerable.Range(0, 5).Select(_ => new byte[Constants.PageSize]).ToArray();
        foreach (var buffer in buffers)
        {
            pool.Retire(buffer, generation: 0);
        }

        Assert.Equal(2, pool.RetiredCount); // PB3: the oldest were dropped
        pool.ReleaseRetired(long.MaxValue);
        Assert.Equal(2, pool.FreeCount);
        var handed = new[] { pool.Rent(), pool.Rent() };
        Assert.Equal(buffers[3..].ToHashSet(ReferenceEqualityComparer.Instance), handed.ToHashSet(ReferenceEqualityComparer.Instance));
        var fresh = pool.Rent();
        Assert.DoesNotContain(buffers, b => ReferenceEquals(b, fresh)); // empty: a new allocation

        var off = new PageBufferPool(capacity: 0);
        off.Retire(new byte[Constants.PageSize], generation: 0);
        off.ReleaseRetired(long.MaxValue);
        Assert.Equal(0, off.FreeCount);
    }

    /// <summary>
    /// Readers hold spans into page versions across random commits, flushes and nested readers;
    /// every held span must keep its bytes until its reader ends, and buffers must have been
    /// recycled meanwhile. The spans stay locals of a recursion, one level per live reader (so
    /// readers end in the reverse order they began): a span on the stack is what keeps a version's
    /// array alive in real code, where a raw address would not. With a small page-version budget,
    /// versions readers hold spill to the scratch file (their buffers retired at the spill, PT9).
    /// </summary>
    [Theory]
    [InlineData(256L << 20)]
    [InlineData(48L << 10)]
    public void Spans_readers_hold_keep_their_bytes_while_buffers_are_recycled_under_random_commits_and_flushes(long budget)
    {
        var seed = TestSeed.Next(output, nameof(Spans_readers_hold_keep_their_bytes_while_buffers_are_recycled_under_random_commits_and_flushes));
        var run = new HeldSpansRun(seed, budget);
        run.Level(0);
        var pool = run.Env.PageTable.Buffers;
        Assert.True(pool.Reused > 0, $"seed {seed}: no buffer was recycled; the test did not exercise the pool");
        Assert.True(run.HeldFromVersions > 0, $"seed {seed}: no held span pointed into a page version");
        Assert.True(budget > (1 << 20) || run.Env.PageTable.Scratch.WrittenBytes > 0, $"seed {seed}: nothing spilled under the small budget");
        output.WriteLine($"steps {run.Steps}, buffers reused {pool.Reused}, spans held into page versions {run.HeldFromVersions}");
        run.Env.Dispose();
    }

    private sealed class HeldSpansRun(int seed, long budget)
    {
        private const int MaxSteps = 1500;
        private const int MaxReaders = 6;
        private readonly Random _random = new(seed);
        private readonly Dictionary<int, byte[]> _model = [];

        public StorageEnvironment Env { get; } = Open(budget);

        public int Steps { get; private set; }

        public int HeldFromVersions { get; private set; }

        private static StorageEnvironment Open(long budget)
        {
            var options = StoreFactory.Options(StoreFactory.NewFileSystem());
            options.MaxPageVersionMemory = budget;
            return StorageEnvironment.Open(options);
        }

        /// <summary>Random steps at this nesting level; a new reader is a level deeper, holding three spans as locals.</summary>
        public void Level(int depth)
        {
            while (Steps < MaxSteps)
            {
                Steps++;
                var op = _random.Next(100);
                if (op < 55)
                {
                    Commit();
                }
                else if (op < 70 && depth < MaxReaders && _model.Count > 0)
                {
                    HoldingReader(depth);
                }
                else if (op < 85 && depth > 0)
                {
                    return; // this level's reader ends
                }
                else
                {
                    Env.FlushToDataFile(); // flushes up to the oldest reader, removes versions, maintains the page table (PT9)
                }
            }
        }

        private void HoldingReader(int depth)
        {
            using var reader = Env.BeginRead();
            var snapshot = new Dictionary<int, byte[]>(_model);
            var tree = reader.OpenTree("t")!;
            var keys = _model.Keys.OrderBy(_ => _random.Next()).Take(3).ToArray();
            var expected = keys.Select(k => _model[k]).ToArray();
            var a = Hold(tree, keys[0]);
            var b = keys.Length > 1 ? Hold(tree, keys[1]) : expected[0];
            var c = keys.Length > 2 ? Hold(tree, keys[2]) : expected[0];
            var at = Steps;
            Level(depth + 1);
            Check(a, expected[0], keys[0], at);
            Check(b, expected[Math.Min(1, keys.Length - 1)], keys[Math.Min(1, keys.Length - 1)], at);
            Check(c, expected[Math.Min(2, keys.Length - 1)], keys[Math.Min(2, keys.Length - 1)], at);
            foreach (var (key, value) in snapshot)
            {
                Assert.True(tree.TryGet(Key(key), out var actual) && actual.SequenceEqual(value), $"seed {seed}, step {Steps}: key {key} reads wrong in the snapshot of step {at}");
            }
        }

        private ReadOnlySpan<byte> Hold(Tree tree, int key)
        {
            Assert.True(tree.TryGet(Key(key), out var value), $"seed {seed}, step {Steps}: key {key} missing");
            HeldFromVersions += Env.Pager.Contains(value) ? 0 : 1;
            return value;
        }

        private void Check(ReadOnlySpan<byte> held, byte[] expected, int key, int at) =>
            Assert.True(held.SequenceEqual(expected), $"seed {seed}, step {Steps}: the span of key {key} a reader took at step {at} changed while it was live (PB1)");

        private void Commit()
        {
            using var tx = Env.BeginWrite();
            var tree = tx.CreateTree("t");
            for (var n = _random.Next(1, 40); n > 0; n--)
            {
                var key = _random.Next(400);
                if (_random.Next(6) == 0)
                {
                    tree.Delete(Key(key));
                    _model.Remove(key);
                }
                else
                {
                    // Now and then a value of an overflow run (PB2: runs are recycled too).
                    var length = _random.Next(12) == 0 ? _random.Next(5_000, 40_000) : _random.Next(10, 400);
                    var value = Encoding.UTF8.GetBytes($"{key}@{Steps}:".PadRight(length, (char)('a' + (Steps % 26))));
                    tree.Put(Key(key), value);
                    _model[key] = value;
                }
            }

            tx.Commit();
        }
    }

    /// <summary>The explicit case: a reader holds a span into a version the flush then removes; the buffer waits for the reader, then is reused.</summary>
    [Fact]
    public void A_flushed_version_a_reader_holds_is_recycled_only_after_the_reader_ends()
    {
        using var fs = StoreFactory.NewFileSystem();
        using var env = StorageEnvironment.Open(StoreFactory.Options(fs));
        var pool = env.PageTable.Buffers;
        Put(env, "a", 1);
        env.FlushToDataFile(); // the first versions leave the table; nobody is live, so they are free at the maintenance pass
        Assert.True(pool.FreeCount > 0, "buffers of flushed versions are free once no transaction can hold them");

        Put(env, "a", 2);
        Assert.True(pool.Reused > 0, "a copy-on-write copy took a recycled buffer");

        var reader = env.BeginRead();
        Assert.True(reader.OpenTree("t")!.TryGet(Key(7), out var held));
        Assert.False(env.Pager.Contains(held), "the span points into a page version (not flushed yet)");
        var expected = held.ToArray();
        for (var round = 3; round < 40; round++)
        {
            Put(env, "a", round);
            env.FlushToDataFile(); // removes the version the reader holds (the data file has it) and recycles others
            Assert.True(held.SequenceEqual(expected), $"round {round}: the held span changed");
        }

        var retired = pool.RetiredCount;
        Assert.True(retired > 0, "the held version's buffer waits for the reader");
        reader.Dispose();
        env.FlushToDataFile();
        Assert.True(pool.RetiredCount < retired, "once the reader ended its generation's buffers were released");
    }

    [Fact]
    public void Overflow_values_written_after_a_flush_take_recycled_runs_instead_of_allocating_them()
    {
        // Regression: every overflow run was a new pinned array (16–24 KiB for a 12–20 KiB
        // value) left to the collector, ~25 KB allocated per such put. Fixed by handing the runs
        // that left the page table back to new runs of their size (PB2).
        using var fs = StoreFactory.NewFileSystem();
        using var env = StorageEnvironment.Open(StoreFactory.Options(fs));
        var value = new byte[16_000];
        void PutRuns(int round)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("t");
            for (var key = 0; key < 10; key++)
            {
                value.AsSpan().Fill((byte)(round + key));
                tree.Put(Key(key), value);
            }

            tx.Commit();
        }

        for (var round = 0; round < 3; round++)
        {
            PutRuns(round);
            env.FlushToDataFile(); // the replaced runs leave the page table and come back to the pool
        }

        var before = GC.GetAllocatedBytesForCurrentThread();
        const int rounds = 5;
        for (var round = 3; round < 3 + rounds; round++)
        {
            PutRuns(round);
            env.FlushToDataFile();
        }

        var perPut = (GC.GetAllocatedBytesForCurrentThread() - before) / (rounds * 10);
        output.WriteLine($"{perPut} bytes allocated per put of a {value.Length}-byte value on the writing thread");
        Assert.True(perPut < value.Length / 2, $"{perPut} bytes allocated per put of a {value.Length}-byte value: its run was not recycled");

        // A recycled run holds another value's bytes (0xDB in Debug builds, PB4): a new run is
        // zeroed but for the bytes its value fills.
        var reused = env.PageTable.Buffers.Reused;
        using var write = env.BeginWrite();
        var run = write.Low.AllocatePagesToFill(2, Paging.PageHeader.Size + 100, out var runPage);
        Assert.True(env.PageTable.Buffers.Reused > reused, "the run took a recycled buffer");
        Assert.Equal(runPage, Paging.PageHeader.GetPageNumber(run));
        Paging.PageHeader.SetPageNumber(run, 0);
        Assert.True(run[..Paging.PageHeader.Size].IndexOfAnyExcept((byte)0) < 0, "the new run's header is zero but for its page number");
        Assert.True(run[(Paging.PageHeader.Size + 100)..].IndexOfAnyExcept((byte)0) < 0, "the new run is zero after the bytes its value fills");
    }

    private static byte[] Key(int key) => Encoding.UTF8.GetBytes($"k{key:D4}");

    private static void Put(StorageEnvironment env, string tag, int round)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (var key = 0; key < 200; key++)
        {
            tree.Put(Key(key), Encoding.UTF8.GetBytes($"{tag}{round}-{key}".PadRight(60, '.')));
        }

        tx.Commit();
    }
}
