namespace Voron.Tests.Core.Archive;

/// <summary>
/// The IArchiveDestination contract (AD1..AD6), checked the same way against every implementation:
/// the directory here, S3 (s3rver) and Azure Blob (Azurite) in ObjectStorage/. Each check uses keys
/// under its own fresh prefix, so one destination serves all of them.
/// </summary>
internal static class ArchiveDestinationContract
{
    public static async Task CheckAllAsync(IArchiveDestination destination, int seed)
    {
        var random = new Random(seed);
        var root = $"contract{random.Next():x8}";
        await PutIfAbsentStoresOnceAndNeverReplaces(destination, root + "/once", random);
        await RangedGetReturnsTheRangeAndNullForAMissingObject(destination, root + "/range", random);
        await ListGivesKeysInOrderAfterTheStartKey(destination, root + "/list");
        await DeleteRemovesAndAMissingObjectIsNoError(destination, root + "/delete");
        await AFailedPutStoresNothing(destination, root + "/failed", random);
        await AStreamThatCannotSeekIsStoredByteForByte(destination, root + "/forward", random);
    }

    private static async Task PutIfAbsentStoresOnceAndNeverReplaces(IArchiveDestination destination, string prefix, Random random)
    {
        var first = Bytes(random, 70_000);
        var key = prefix + "/a";
        Assert.True(await destination.PutIfAbsentAsync(key, new MemoryStream(first), first.Length));
        Assert.Equal(first, await ReadAllAsync(destination, key));

        var second = Bytes(random, 100);
        Assert.False(await destination.PutIfAbsentAsync(key, new MemoryStream(second), second.Length)); // AD2
        Assert.Equal(first, await ReadAllAsync(destination, key));

        Assert.True(await destination.PutIfAbsentAsync(prefix + "/empty", new MemoryStream([]), 0));
        Assert.Empty(await ReadAllAsync(destination, prefix + "/empty"));
    }

    private static async Task RangedGetReturnsTheRangeAndNullForAMissingObject(IArchiveDestination destination, string prefix, Random random)
    {
        var bytes = Bytes(random, 10_000);
        await destination.PutIfAbsentAsync(prefix + "/x", new MemoryStream(bytes), bytes.Length);
        Assert.Equal(bytes[100..260], await ReadAllAsync(destination, prefix + "/x", 100, 160));
        Assert.Equal(bytes[9_990..], await ReadAllAsync(destination, prefix + "/x", 9_990, 160)); // cut at the end
        Assert.Equal(bytes[5_000..], await ReadAllAsync(destination, prefix + "/x", 5_000));
        Assert.Null(await destination.GetAsync(prefix + "/missing")); // AD3
    }

    private static async Task ListGivesKeysInOrderAfterTheStartKey(IArchiveDestination destination, string prefix)
    {
        foreach (var name in new[] { "000000000000000c", "0000000000000002", "000000000000000a", "sub/0000000000000001" })
        {
            await destination.PutIfAbsentAsync($"{prefix}/{name}", new MemoryStream([1, 2, 3]), 3);
        }

        await destination.PutIfAbsentAsync(prefix + "x/other", new MemoryStream([1]), 1); // shares the prefix's text, not its folder

        var all = await KeysAsync(destination, prefix + "/");
        Assert.Equal(new[] { "0000000000000002", "000000000000000a", "000000000000000c", "sub/0000000000000001" }.Select(n => $"{prefix}/{n}"), all);
        var after = await KeysAsync(destination, prefix + "/", $"{prefix}/0000000000000002");
        Assert.Equal(new[] { "000000000000000a", "000000000000000c", "sub/0000000000000001" }.Select(n => $"{prefix}/{n}"), after);
        var lengths = new List<long>();
        await foreach (var item in destination.ListAsync(prefix + "/"))
        {
            lengths.Add(item.Length);
        }

        Assert.All(lengths, length => Assert.Equal(3, length));
    }

    private static async Task DeleteRemovesAndAMissingObjectIsNoError(IArchiveDestination destination, string prefix)
    {
        await destination.PutIfAbsentAsync(prefix + "/d", new MemoryStream([9]), 1);
        await destination.DeleteAsync(prefix + "/d");
        Assert.Null(await destination.GetAsync(prefix + "/d"));
        Assert.Empty(await KeysAsync(destination, prefix + "/"));
        await destination.DeleteAsync(prefix + "/d"); // AD5
        Assert.True(await destination.PutIfAbsentAsync(prefix + "/d", new MemoryStream([7]), 1)); // absent again
    }

    private static async Task AFailedPutStoresNothing(IArchiveDestination destination, string prefix, Random random)
    {
        var bytes = Bytes(random, 200_000);
        await Assert.ThrowsAnyAsync<Exception>(() => destination.PutIfAbsentAsync(prefix + "/f", new BreaksHalfway(bytes), bytes.Length));
        Assert.Null(await destination.GetAsync(prefix + "/f")); // AD1
        Assert.Empty(await KeysAsync(destination, prefix + "/"));
        Assert.True(await destination.PutIfAbsentAsync(prefix + "/f", new MemoryStream(bytes), bytes.Length));
        Assert.Equal(bytes, await ReadAllAsync(destination, prefix + "/f"));
    }

    // A caller's stream need not seek (a download being copied on, a decompressing stream): what is
    // stored is its bytes, not an encoding the client chose for a body of unknown replayability.
    private static async Task AStreamThatCannotSeekIsStoredByteForByte(IArchiveDestination destination, string prefix, Random random)
    {
        var bytes = Bytes(random, 150_000);
        Assert.True(await destination.PutIfAbsentAsync(prefix + "/n", new ForwardOnly(bytes), bytes.Length));
        Assert.Equal(bytes, await ReadAllAsync(destination, prefix + "/n"));
    }

    public static byte[] Bytes(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }

    public static async Task<byte[]> ReadAllAsync(IArchiveDestination destination, string key, long offset = 0, long? length = null)
    {
        await using var stream = await destination.GetAsync(key, offset, length) ?? throw new Xunit.Sdk.XunitException($"'{key}' is missing");
        var copy = new MemoryStream();
        await stream.CopyToAsync(copy);
        return copy.ToArray();
    }

    public static async Task<List<string>> KeysAsync(IArchiveDestination destination, string prefix, string? startAfter = null)
    {
        var keys = new List<string>();
        await foreach (var item in destination.ListAsync(prefix, startAfter))
        {
            keys.Add(item.Key);
        }

        return keys;
    }

    /// <summary>A stream that reads forward only, as a network or decompressing stream does.</summary>
    private sealed class ForwardOnly(byte[] bytes) : Stream
    {
        private readonly MemoryStream _inner = new(bytes, writable: false);

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position
        {
            get => throw new NotSupportedException();
            set => throw new NotSupportedException();
        }

        public override int Read(byte[] buffer, int offset, int count) => _inner.Read(buffer, offset, count);

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }

    /// <summary>A seekable stream whose reads fail once half of it was read: a connection lost mid-upload.</summary>
    private sealed class BreaksHalfway(byte[] bytes) : Stream
    {
        private long _position;

        public override bool CanRead => true;

        public override bool CanSeek => true;

        public override bool CanWrite => false;

        public override long Length => bytes.Length;

        public override long Position
        {
            get => _position;
            set => _position = value;
        }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            var half = bytes.Length / 2;
            if (_position >= half)
            {
                throw new IOException("the connection broke halfway (injected)");
            }

            var count = (int)Math.Min(buffer.Length, half - _position);
            bytes.AsSpan((int)_position, count).CopyTo(buffer);
            _position += count;
            return count;
        }

        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => new(Read(buffer.Span));

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            Task.FromResult(Read(buffer.AsSpan(offset, count)));

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => _position = origin switch
        {
            SeekOrigin.Begin => offset,
            SeekOrigin.Current => _position + offset,
            _ => bytes.Length + offset,
        };

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
