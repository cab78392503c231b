namespace Voron.Tests.Core.Engine;

/// <summary>
/// What the Voron.Core quick start (README.md) and guide (docs/core.md) promise, checked on an in-memory
/// store. The quick start itself is compiled and run from README.md's own text by
/// Readme/ReadmeCodeBlockTests; the lease, health and long-reader blocks of docs/core.md are marked
/// fragments, so these hand-made copies are what keep their calls working.
/// </summary>
public sealed class ReadmeExampleTests
{
    [Fact]
    public void Quick_start_from_the_readme_runs_as_written()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());

        using (var tx = env.BeginWrite())
        {
            var users = tx.CreateTree("users");
            users.Put("users/1"u8, "{\"name\":\"Ada\"}"u8);
            tx.Commit();
        }

        using (var read = env.BeginRead())
        {
            var users = read.OpenTree("users")!;
            Assert.True(users.TryGet("users/1"u8, out var json));
            Assert.Equal("{\"name\":\"Ada\"}"u8.ToArray(), json.ToArray());

            var it = users.Iterate();
            var seen = 0;
            for (var more = it.SeekPrefix("users/"u8); more && it.Key.StartsWith("users/"u8); more = it.MoveNext())
            {
                seen++;
            }

            Assert.Equal(1, seen);
        }
    }

    [Fact]
    public async Task Keeping_a_value_past_its_transaction_and_the_health_check_from_the_readme_run_as_written()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        await env.ExecuteAsync(tx => tx.CreateTree("users").Put("users/1"u8, "{\"name\":\"Ada\"}"u8));
        using var response = new MemoryStream();

        System.Buffers.IMemoryOwner<byte>? json;
        using (var read = env.BeginRead())
        {
            json = read.OpenTree("users")!.GetLease("users/1"u8); // a pooled copy: outlives the transaction
        }

        using (json)
        {
            if (json != null)
            {
                await response.WriteAsync(json.Memory); // safe across the await
            }
        }

        var healthy = !env.IsFailed; // env.Failure says why when it is not
        Assert.True(healthy);
        Assert.Null(env.Failure);
        Assert.Equal("{\"name\":\"Ada\"}"u8.ToArray(), response.ToArray());
    }

    [Fact]
    public void The_long_reader_warning_from_the_readme_compiles_and_fires()
    {
        var options = StorageEnvironmentOptions.CreateInMemory();
        options.FlushInterval = TimeSpan.FromMilliseconds(10);
        var logged = new System.Collections.Concurrent.ConcurrentQueue<string>();
        options.MaxPageVersionMemory = 64L << 20; // page versions kept in memory; the rest go to voron.scratch
        options.LongReaderThreshold = TimeSpan.FromMilliseconds(20); // docs/core.md says 30 s
        options.OnLongReader = pin => logged.Enqueue(
            $"A read transaction at tx {pin.SnapshotTransactionId} is {pin.Age} old and holds back {pin.HeldBackTransactions} commits ({pin.HeldBackBytes} bytes)");
        using var env = StorageEnvironment.Open(options);
        using var reader = env.BeginRead();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("users").Put("users/1"u8, "{}"u8);
            tx.Commit();
        }

        Assert.True(SpinWait.SpinUntil(() => !logged.IsEmpty, TimeSpan.FromSeconds(30)));
    }
}
