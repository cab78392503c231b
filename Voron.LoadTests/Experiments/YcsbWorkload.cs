using System.Buffers.Binary;
using Voron.LoadTests.Data;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// The core YCSB workloads the <c>ycsb</c> experiment runs (Cooper et al., "Benchmarking Cloud
/// Serving Systems with YCSB", SoCC 2010, and YCSB's workloads/workloada, b, e), with YCSB's
/// request distribution (scrambled zipfian, theta 0.99) over the loaded records:
/// <list type="bullet">
/// <item>A, update heavy: 50% reads, 50% updates (a record replaced by a new document);</item>
/// <item>B, read mostly: 95% reads, 5% updates;</item>
/// <item>E, short ranges: 95% scans of 1–100 records (uniform) from a zipfian start key, 5% inserts of new records.</item>
/// </list>
/// Record keys are hashed (as YCSB's default insert order), so inserts land all over the tree.
/// Each run's operations are drawn once from its seed and replayed on every engine.
/// </summary>
internal sealed class YcsbWorkload
{
    internal const string A = "ycsb-a";
    internal const string B = "ycsb-b";
    internal const string E = "ycsb-e";
    internal static readonly string[] Names = [A, B, E];

    internal const int MaxScanLength = 100;

    private YcsbWorkload(string name, YcsbOperation[] operations)
    {
        Name = name;
        Operations = operations;
    }

    public string Name { get; }

    public YcsbOperation[] Operations { get; }

    /// <summary>
    /// <paramref name="count"/> operations of workload <paramref name="name"/> over <paramref name="records"/>
    /// loaded records; inserts (E) take record numbers from <paramref name="firstNewRecord"/> on.
    /// </summary>
    public static YcsbWorkload Create(string name, int count, long records, long firstNewRecord, int seed)
    {
        var random = new Random(seed);
        var requests = new Zipfian(records, Zipfian.YcsbTheta, scrambled: true);
        var operations = new YcsbOperation[count];
        var next = firstNewRecord;
        for (var i = 0; i < count; i++)
        {
            var roll = random.NextDouble();
            operations[i] = name switch
            {
                A => new(roll < 0.5 ? YcsbKind.Read : YcsbKind.Update, requests.Next(random), 0),
                B => new(roll < 0.95 ? YcsbKind.Read : YcsbKind.Update, requests.Next(random), 0),
                E => roll < 0.95
                    ? new(YcsbKind.Scan, requests.Next(random), random.Next(1, MaxScanLength + 1))
                    : new(YcsbKind.Insert, next++, 0),
                _ => throw new ArgumentOutOfRangeException(nameof(name), name, "Unknown YCSB workload."),
            };
        }

        return new YcsbWorkload(name, operations);
    }

    /// <summary>Record <paramref name="record"/>'s key: a 64-bit hash of its number, big-endian.</summary>
    public static byte[] Key(long record)
    {
        var key = new byte[8];
        var value = (ulong)record + 0x9E3779B97F4A7C15UL;
        value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9UL;
        value = (value ^ (value >> 27)) * 0x94D049BB133111EBUL;
        BinaryPrimitives.WriteUInt64BigEndian(key, value ^ (value >> 31));
        return key;
    }
}

internal enum YcsbKind : byte
{
    Read,
    Update,
    Scan,
    Insert,
}

/// <summary>One operation: its kind, the record it names (the start of a scan), and a scan's length.</summary>
internal readonly record struct YcsbOperation(YcsbKind Kind, long Record, int ScanLength);
