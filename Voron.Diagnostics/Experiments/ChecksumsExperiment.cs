using System.Diagnostics;
using System.IO.Hashing;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Reporting;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// The engine's checksum beside System.IO.Hashing's: CRC32C as Voron.Core computes it (the
/// SSE4.2 / ARMv8 CRC32C instruction, 8 bytes at a time, through BitOperations.Crc32C) against
/// CRC-32 (IEEE), CRC-64, XxHash32, XxHash64, XxHash3 and XxHash128, on buffers of the sizes the
/// engine checksums: a journal record's 4 KiB, a page's 8 KiB, 64 KiB and 1 MiB records. MB/s of
/// one thread, the median of interleaved rounds. Decides whether a checksum change would pay
/// (docs/dependencies.md); every on-disk format names CRC32C, so a change is a format version.
/// </summary>
internal sealed class ChecksumsExperiment : IExperiment
{
    internal static readonly int[] Sizes = [4096, 8192, 64 * 1024, 1 << 20];

    /// <summary>The algorithms, the engine's first; each consumes the whole buffer and returns something, so nothing is optimized away.</summary>
    internal static readonly (string Name, Func<byte[], ulong> Hash)[] Algorithms =
    [
        ("crc32c (engine)", data => Crc32C.Compute(data)),
        ("crc32 (System.IO.Hashing)", data => Crc32.HashToUInt32(data)),
        ("crc64 (System.IO.Hashing)", data => Crc64.HashToUInt64(data)),
        ("xxhash32 (System.IO.Hashing)", data => XxHash32.HashToUInt32(data)),
        ("xxhash64 (System.IO.Hashing)", data => XxHash64.HashToUInt64(data)),
        ("xxhash3 (System.IO.Hashing)", data => XxHash3.HashToUInt64(data)),
        ("xxhash128 (System.IO.Hashing)", data => (ulong)XxHash128.HashToUInt128(data)),
    ];

    private readonly long? _bytesPerRound;
    private readonly TimeSpan _warmUp;

    /// <param name="bytesPerRound">Bytes each algorithm hashes per size per round; default 1 GiB (64 MiB with --quick). Tests pass less.</param>
    /// <param name="warmUp">How long each algorithm runs untimed first, so tiered compilation has optimized it; default 0.3 s.</param>
    public ChecksumsExperiment(long? bytesPerRound = null, TimeSpan? warmUp = null)
    {
        _bytesPerRound = bytesPerRound;
        _warmUp = warmUp ?? TimeSpan.FromMilliseconds(300);
    }

    public string Name => "checksums";

    public string Description => "CRC32C in hardware (the engine's checksum) beside System.IO.Hashing's CRC-32, CRC-64 and xxHash: MB/s on 4 KiB to 1 MiB";

    public Task<Report> RunAsync(ExperimentContext context)
    {
        var bytesPerRound = _bytesPerRound ?? (context.Quick ? 64L << 20 : 1L << 30);
        var rounds = context.Quick ? 3 : 7;
        var report = context.NewReport(Name, "Checksums: CRC32C in hardware beside System.IO.Hashing");
        report.AddFact("bytesPerRound", bytesPerRound);
        report.AddFact("rounds", rounds);
        report.AddFact("crc32cInHardware", System.Runtime.Intrinsics.X86.Sse42.X64.IsSupported || System.Runtime.Intrinsics.Arm.Crc32.Arm64.IsSupported);
        report.AddFact("systemIoHashing", typeof(XxHash3).Assembly.GetName().Version?.ToString());

        var random = new Random(20_261_123);
        foreach (var size in Sizes)
        {
            var buffer = new byte[size];
            random.NextBytes(buffer);
            var repeats = (int)Math.Max(1, bytesPerRound / size);
            var times = Algorithms.Select(_ => new List<double>()).ToArray();
            ulong sink = 0;
            foreach (var (_, hash) in Algorithms)
            {
                // Long enough for tiered compilation to have optimized every hot method.
                for (var warm = Stopwatch.StartNew(); warm.Elapsed < _warmUp;)
                {
                    sink ^= hash(buffer);
                }
            }

            for (var round = 0; round < rounds; round++)
            {
                for (var a = 0; a < Algorithms.Length; a++)
                {
                    var hash = Algorithms[a].Hash;
                    var start = Stopwatch.GetTimestamp();
                    for (var i = 0; i < repeats; i++)
                    {
                        sink ^= hash(buffer);
                    }

                    times[a].Add(Stopwatch.GetElapsedTime(start).TotalSeconds);
                }
            }

            var engine = (double)repeats * size / 1e6 / Median(times[0]);
            for (var a = 0; a < Algorithms.Length; a++)
            {
                var megabytesPerSecond = (double)repeats * size / 1e6 / Median(times[a]);
                context.Progress($"{size,8:N0} bytes {Algorithms[a].Name,-30} {megabytesPerSecond,9:N0} MB/s");
                report.AddRow(
                    ("bytes", size),
                    ("algorithm", Algorithms[a].Name),
                    ("MBps", megabytesPerSecond),
                    ("vsCrc32c", megabytesPerSecond / engine));
            }

            report.AddFact($"sink{size}", sink.ToString("X16", System.Globalization.CultureInfo.InvariantCulture)); // keeps the hashes observable
        }

        report.AddNote("MBps: bytes hashed per second by one thread (MB = 10^6 bytes), the median of the rounds; vsCrc32c: against the engine's CRC32C on the same size.");
        report.AddNote("Every checksum the engine writes (page headers, journal records, free-space pages) is CRC32C: another algorithm means a new format version of each.");
        return Task.FromResult(report);
    }

    private static double Median(List<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted[sorted.Count / 2];
    }
}
