using System.Buffers;

namespace Voron.Tests.Core.Engine;

/// <summary>Copy-out reads: values that outlive their transaction and cross awaits.</summary>
public sealed class ValueCopyTests
{
    [Theory]
    [InlineData(0)]
    [InlineData(100)]
    [InlineData(50_000)] // an overflow run
    public async Task A_value_copied_into_a_buffer_writer_or_a_lease_outlives_its_transaction_and_crosses_awaits(int length)
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        var value = new byte[length];
        new Random(length).NextBytes(value);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, value);
            tx.Commit();
        }

        var writer = new ArrayBufferWriter<byte>();
        IMemoryOwner<byte>? lease;
        using (var read = env.BeginRead())
        {
            var tree = read.OpenTree("t")!;
            Assert.True(tree.TryGet("k"u8, writer));
            Assert.False(tree.TryGet("missing"u8, writer));
            lease = tree.GetLease("k"u8);
            Assert.Null(tree.GetLease("missing"u8));
        }

        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, [1, 2, 3]); // the stored value changes; the copies do not
            tx.Commit();
        }

        env.FlushToDataFile();
        await Task.Yield();
        Assert.Equal(value, writer.WrittenSpan.ToArray());
        Assert.NotNull(lease);
        Assert.Equal(value, lease.Memory.ToArray());
        lease.Dispose();
        lease.Dispose();
        Assert.Throws<ObjectDisposedException>(() => lease.Memory);
    }

    [Fact]
    public void Copy_out_reads_throw_once_the_transaction_ended()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        var read = env.BeginRead();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t");
            tx.Commit();
        }

        read.Dispose();
        using var again = env.BeginRead();
        var tree = again.OpenTree("t")!;
        again.Dispose();
        Assert.Throws<ObjectDisposedException>(() => tree.GetLease("k"u8));
        Assert.Throws<ObjectDisposedException>(() => tree.TryGet("k"u8, new ArrayBufferWriter<byte>()));
    }
}
