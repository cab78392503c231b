using System.Buffers.Binary;
using Voron.LoadTests.Data;
using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// The entries the <c>kv</c> experiment writes and reads, built before any timing starts and
/// shared by every engine, all from one seed: keys as 8-byte big-endian integers (byte order is
/// numeric order), three kinds of values, and the random orders the workloads use.
/// <list type="bullet">
/// <item>small: N entries of 100 random bytes (the LevelDB/Symas shape);</item>
/// <item>json: <see cref="JsonCount"/> realistic JSON documents of 0.5–4 KiB (<see cref="RealisticJson"/>);
///   the larger ones live on overflow pages in SQLite and LMDB (past about a quarter or half of a
///   4 KiB page), while Voron keeps values up to ~4 KiB, half its 8 KiB page, in the leaf;</item>
/// <item>overflow: <see cref="OverflowCount"/> JSON documents of 12–20 KiB, on overflow pages in every engine.</item>
/// </list>
/// </summary>
internal sealed class KvDataSet
{
    internal const int KeySize = 8;
    internal const int ValueSize = 100;
    internal const int InsertBatchSize = 100;
    internal const int JsonMinBytes = 512;
    internal const int JsonMaxBytes = 4096;
    internal const int OverflowMinBytes = 12 * 1024;
    internal const int OverflowMaxBytes = 20 * 1024;
    internal const int OverflowBatchSize = 10;

    /// <summary>The random-order inserts in durable batches insert this fraction of N (a fifth: 2,000 commits for N = 1M).</summary>
    internal const int RandomInsertDivisor = 5;

    /// <summary>JSON documents are N / this (50,000 for N = 1M).</summary>
    internal const int JsonDivisor = 20;

    /// <summary>Overflow documents are N / this (5,000 for N = 1M).</summary>
    internal const int OverflowDivisor = 200;

    /// <summary>Each JSON document is read this many times by json-read-1t (in a random order).</summary>
    internal const int JsonReadsPerKey = 4;

    /// <summary>Each overflow document is read this many times by overflow-read-1t.</summary>
    internal const int OverflowReadsPerKey = 10;

    /// <summary>
    /// Small values cycle through this many distinct random arrays: enough that no two equal values
    /// sit within 64 KiB of each other in key order (an LZ4 window), few enough to stay small.
    /// </summary>
    private const int DistinctValues = 4096;

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
        Sequential = new KvWrite[count];
        for (var i = 0; i < count; i++)
        {
            keys[i] = Key(i);
            Sequential[i] = KvWrite.Put(keys[i], values[i % DistinctValues]);
        }

        var shuffled = (KvWrite[])Sequential.Clone();
        random.Shuffle(shuffled);
        RandomInserts = shuffled.Take(Math.Max(1, count / RandomInsertDivisor)).ToArray();
        RandomBatches = [.. RandomInserts.Chunk(InsertBatchSize)];
        PreloadBatches = [.. shuffled.Chunk(10_000)];

        ReadKeys = (byte[][])keys.Clone();
        random.Shuffle(ReadKeys);
        MissingKey = Key(count);

        var documents = new RealisticJson(seed);
        Json = Build(Math.Max(1, count / JsonDivisor), () => documents.Next(JsonMinBytes, JsonMaxBytes), random);
        JsonBatches = [.. Json.Chunk(InsertBatchSize)];
        JsonReads = ReadOrder(Json, JsonReadsPerKey, random);
        Overflow = Build(Math.Max(1, count / OverflowDivisor), () => documents.Next(OverflowMinBytes, OverflowMaxBytes), random);
        OverflowBatches = [.. Overflow.Chunk(OverflowBatchSize)];
        OverflowReads = ReadOrder(Overflow, OverflowReadsPerKey, random);
    }

    public int Count { get; }

    /// <summary>Every small entry in key order.</summary>
    public KvWrite[] Sequential { get; }

    /// <summary>N / <see cref="RandomInsertDivisor"/> small entries in a random order.</summary>
    public KvWrite[] RandomInserts { get; }

    /// <summary><see cref="RandomInserts"/> in batches of <see cref="InsertBatchSize"/>.</summary>
    public IReadOnlyList<KvWrite>[] RandomBatches { get; }

    /// <summary>Every small entry in a random order, in batches of 10,000: the untimed load of the store the reads run on.</summary>
    public IReadOnlyList<KvWrite>[] PreloadBatches { get; }

    /// <summary>Every small key once, in another random order.</summary>
    public byte[][] ReadKeys { get; }

    /// <summary>A key no store holds.</summary>
    public byte[] MissingKey { get; }

    /// <summary>The JSON documents, in a random key order.</summary>
    public KvWrite[] Json { get; }

    public IReadOnlyList<KvWrite>[] JsonBatches { get; }

    /// <summary>Every JSON key <see cref="JsonReadsPerKey"/> times, in a random order.</summary>
    public byte[][] JsonReads { get; }

    /// <summary>The overflow documents, in a random key order.</summary>
    public KvWrite[] Overflow { get; }

    public IReadOnlyList<KvWrite>[] OverflowBatches { get; }

    /// <summary>Every overflow key <see cref="OverflowReadsPerKey"/> times, in a random order.</summary>
    public byte[][] OverflowReads { get; }

    internal static KvDataSet Create(int count, int seed) => new(count, seed);

    internal static byte[] Key(long number)
    {
        var key = new byte[KeySize];
        BinaryPrimitives.WriteInt64BigEndian(key, number);
        return key;
    }

    private static KvWrite[] Build(int count, Func<byte[]> value, Random random)
    {
        var entries = Enumerable.Range(0, count).Select(i => KvWrite.Put(Key(i), value())).ToArray();
        random.Shuffle(entries);
        return entries;
    }

    private static byte[][] ReadOrder(KvWrite[] entries, int times, Random random)
    {
        var keys = Enumerable.Range(0, times).SelectMany(_ => entries.Select(e => e.Key)).ToArray();
        random.Shuffle(keys);
        return keys;
    }
}
