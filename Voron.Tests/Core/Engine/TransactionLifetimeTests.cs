namespace Voron.Tests.Core.Engine;

/// <summary>T7: an explicit write transaction is done once Commit was called, whatever its outcome.</summary>
public sealed class TransactionLifetimeTests
{
    [Fact]
    public void Every_call_on_a_committed_write_transaction_its_trees_and_iterators_throws()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put("k"u8, [1]);
        var iterator = tree.Iterate();
        tx.Commit();

        Assert.Throws<InvalidOperationException>(() => tree.Put("k"u8, [2]));
        Assert.Throws<InvalidOperationException>(() => tree.TryGet("k"u8, out _));
        Assert.Throws<InvalidOperationException>(() => _ = tree.Count);
        Assert.Throws<InvalidOperationException>(() => iterator.SeekFirst());
        Assert.Throws<InvalidOperationException>(() => tx.OpenTree("t"));
        Assert.Throws<InvalidOperationException>(() => tx.CreateTree("u"));
        Assert.Throws<InvalidOperationException>(tx.Commit);
        Assert.Equal(1, tx.Id); // the id stays readable
        tx.Dispose();
        tx.Dispose();

        using var read = env.BeginRead();
        Assert.Equal([1], read.OpenTree("t")!.Get("k"u8));
    }

    [Fact]
    public void A_write_transaction_whose_commit_failed_is_done_and_says_so()
    {
        var fs = new Journal.RecordingFileSystem(StoreFactory.NewFileSystem());
        var options = StorageEnvironmentOptions.ForFileSystem("/store", fs);
        options.BackgroundFlush = false;
        options.MaxDataFileSize = 1L << 30;
        using var env = StorageEnvironment.Open(options);
        var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put("k"u8, [1]);
        fs.FailWhen = line => line.StartsWith("FlushData /store/journal/", StringComparison.Ordinal);

        Assert.Throws<EnvironmentFailedException>(tx.Commit);

        var error = Assert.Throws<InvalidOperationException>(() => tree.Put("k"u8, [2]));
        Assert.Contains("commit failed", error.Message, StringComparison.Ordinal);
        tx.Dispose();
        env.CloseWithoutFlush();
    }

    [Fact]
    public void A_disposed_read_transaction_and_its_iterators_throw_object_disposed()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, [1]);
            tx.Commit();
        }

        var read = env.BeginRead();
        var tree = read.OpenTree("t")!;
        var iterator = tree.Iterate();
        read.Dispose();

        Assert.Throws<ObjectDisposedException>(() => tree.TryGet("k"u8, out _));
        Assert.Throws<ObjectDisposedException>(() => iterator.SeekFirst());
    }
}
