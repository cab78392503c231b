using System.Buffers.Binary;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// The entries the <c>kv</c> experiment writes and reads, built before any timing starts and
/// shared by every engine: keys 0 .. Count-1 as 8-byte big-endian integers (so byte order is
/// numeric order), 100-byte values of random bytes, and the random orders the workloads use,
/// all from one seed.
/// </summary>
internal sealed class KvDataSet
{
    internal const int KeySize = 8;
    internal const int ValueSize = 100;
    internal const int InsertBatchSize = 100;

    /// <summary>
    /// Values cycle through this many distinct random arrays: enough that no two equal values sit
    /// within 64 KiB of each other in key order (an LZ4 window), few enough to stay small.
    /// </summary>
    private const int DistinctValues = 4096;

    private const int VerifiedReads = 1000;

    private KvDataSet(int count, int seed)
    {
        Count = count;
        var random = new Random(seed);
        var values = new byte[DistinctValues][];
        for (var i = 0; i < values.Length; i++)
        {
            values[i] = new byte[ValueSize];
            random.NextBytes(values[i]);
        }

        var keys = new byte[count][];
        Sequential = new (byte[] Key, byte[] Value)[count];
        for (var i = 0; i < count; i++)
        {
            keys[i] = Key(i);
            Sequential[i] = (keys[i], values[i % DistinctValues]);
        }

        var shuffled = (((byte[] Key, byte[] Value)[])Sequential.Clone());
        random.Shuffle(shuffled);
        RandomBatches = [.. shuffled.Chunk(InsertBatchSize)];

        ReadKeys = ((byte[][])keys.Clone());
        random.Shuffle(ReadKeys);
        VerifyKeys = [.. ReadKeys.Take(VerifiedReads)];
        MissingKey = Key(count);
    }

    public int Count { get; }

    /// <summary>Every entry in key order.</summary>
    public (byte[] Key, byte[] Value)[] Sequential { get; }

    /// <summary>Every entry once, in a random order, in batches of <see cref="InsertBatchSize"/>.</summary>
    public IReadOnlyList<(byte[] Key, byte[] Value)>[] RandomBatches { get; }

    /// <summary>Every key once, in another random order.</summary>
    public byte[][] ReadKeys { get; }

    /// <summary>A sample of keys a store must find after the inserts.</summary>
    public byte[][] VerifyKeys { get; }

    /// <summary>A key no store holds.</summary>
    public byte[] MissingKey { get; }

    internal static KvDataSet Create(int count, int seed) => new(count, seed);

    private static byte[] Key(long number)
    {
        var key = new byte[KeySize];
        BinaryPrimitives.WriteInt64BigEndian(key, number);
        return key;
    }
}
