namespace Voron.Tests.Core.Merging;

/// <summary>M8: MaxBatchBytes bounds the bytes of a merged transaction's pages, large values included.</summary>
public sealed class BatchSizeTests
{
    private static byte[] Key(int i)
    {
        var key = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(key, i);
        return key;
    }

    private static StorageEnvironmentOptions Options(bool asyncCommit)
    {
        var options = StoreFactory.Options(StoreFactory.NewFileSystem(), journalFileSize: 8 << 20);
        options.AsyncCommit = asyncCommit;
        options.MaxBatchBytes = 1 << 20;
        return options;
    }

    /// <summary>
    /// Regression: the merger bounded a batch by its dirty page count times 8 KiB, and an
    /// overflow run counts as one entry however many pages it spans — 40 values of 1 MiB under a
    /// 1 MiB limit went into one 40 MiB journal record (and bursts of large values could exceed
    /// the 2 GiB record limit and fail the whole batch). Bytes are counted now, and an operation
    /// larger than the limit runs alone.
    /// </summary>
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Forty_one_mebibyte_values_under_a_one_mebibyte_limit_make_forty_transactions(bool asyncCommit)
    {
        using var env = StorageEnvironment.Open(Options(asyncCommit));
        var value = new byte[1 << 20];
        var ids = new long[40];
        var before = env.JournalWrites;

        await Task.WhenAll(Enumerable.Range(0, 40).Select(i => env.ExecuteAsync(tx =>
        {
            tx.CreateTree("t").Put(Key(i), value);
            ids[i] = tx.Id;
        })));

        Assert.Equal(40, env.JournalWrites - before);
        Assert.Equal(40, ids.Distinct().Count());
        using var read = env.BeginRead();
        Assert.Equal(40, read.OpenTree("t")!.Count);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task An_operation_larger_than_a_batch_runs_alone_and_the_small_ones_around_it_still_share(bool asyncCommit)
    {
        var options = Options(asyncCommit);
        options.MaxBatchDuration = TimeSpan.FromMinutes(5); // only size ends these batches (a stall on a loaded machine must not)
        using var env = StorageEnvironment.Open(options);
        using var gate = new ManualResetEventSlim();
        var blocker = env.ExecuteAsync(_ => gate.Wait(TimeSpan.FromSeconds(30))); // holds the writer while the rest queue up
        var ids = new long[41];
        var tasks = new List<Task>();
        for (var i = 0; i < 41; i++)
        {
            var k = i;
            var size = k == 20 ? 3 << 20 : 100;
            tasks.Add(env.ExecuteAsync(tx =>
            {
                tx.CreateTree("t").Put(Key(k), new byte[size]);
                ids[k] = tx.Id;
            }));
        }

        gate.Set();
        await blocker;
        await Task.WhenAll(tasks);

        Assert.DoesNotContain(ids[20], ids.Where((_, k) => k != 20));
        Assert.True(ids.Where((_, k) => k != 20).Distinct().Count() <= 3, $"the small operations shared transactions: {string.Join(", ", ids)}");
        using var read = env.BeginRead();
        Assert.Equal(41, read.OpenTree("t")!.Count);
        env.CheckIntegrity();
    }

    [Fact]
    public void MaxBatchBytes_is_refused_outside_its_range()
    {
        var options = StorageEnvironmentOptions.CreateInMemory();
        Assert.Throws<ArgumentOutOfRangeException>(() => options.MaxBatchBytes = 100);
        Assert.Throws<ArgumentOutOfRangeException>(() => options.MaxBatchBytes = 1L << 30);
    }
}
