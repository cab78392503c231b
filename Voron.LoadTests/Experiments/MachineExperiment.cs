using System.Diagnostics;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;
using Voron.Platform;
using Voron.Platform.Posix;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// The physical limits every other experiment reports beside its own figures: how long one
/// write followed by fdatasync takes at 4 KiB, 64 KiB and 1 MiB (an unmerged durable commit can
/// be no faster), and the sequential write bandwidth. Writes go through Voron.Core's own file
/// layer (<see cref="PosixFileSystem"/>), each size twice: into freshly preallocated space and into
/// space already written (zero-filled), which is where the journal writes its records (J10 in
/// JournalWriter.cs) — the first costs an inode write per fdatasync on ext4 and XFS.
/// </summary>
internal sealed class MachineExperiment : IExperiment
{
    private static readonly (int Size, int Iterations, int QuickIterations)[] Shapes =
    [
        (4 * 1024, 2000, 300),
        (64 * 1024, 1000, 200),
        (1024 * 1024, 200, 50),
    ];

    public string Name => "machine";

    public string Description => "this machine's write+fdatasync latency (4 KiB, 64 KiB, 1 MiB) and sequential write bandwidth";

    public Task<Report> RunAsync(ExperimentContext context)
    {
        var report = new Report(Name, "Machine: durable write latency and sequential bandwidth");
        report.AddFact("durability", "write + fdatasync per operation");
        report.AddFact("dataDirectory", context.DataDirectory);
        var directory = context.NewDirectory("machine");

        foreach (var (size, iterations, quickIterations) in Shapes)
        {
            var count = context.Quick ? quickIterations : iterations;
            foreach (var space in new[] { SyncSpace.Preallocated, SyncSpace.Written })
            {
                var where = space == SyncSpace.Written ? "written (zero-filled)" : "preallocated";
                context.Progress($"write+fdatasync of {FormatSize(size)} x {count} into {where} space");
                var sample = MeasureDurableWrites(Path.Combine(directory, $"sync-{size}.bin"), size, count, space);
                report.AddRow(
                    ("measure", "write+fdatasync"),
                    ("space", where),
                    ("size", FormatSize(size)),
                    ("count", sample.Count),
                    ("medianMs", sample.Median),
                    ("p99Ms", sample.Percentile(99)),
                    ("meanMs", sample.Mean),
                    ("perSecAtMedian", 1000.0 / sample.Median),
                    ("mbPerSec", null));
                if (size == 4096)
                {
                    report.AddFact(space == SyncSpace.Written ? "fdatasyncMedianMs4k" : "fdatasyncMedianMs4kPreallocated", sample.Median);
                }
            }
        }

        var totalBytes = (context.Quick ? 64L : 512L) * 1024 * 1024;
        context.Progress($"sequential write of {FormatSize(totalBytes)} in 1 MiB writes, one fdatasync at the end");
        var (seconds, bandwidth) = MeasureSequentialBandwidth(Path.Combine(directory, "sequential.bin"), totalBytes);
        report.AddRow(
            ("measure", "sequential write"),
            ("space", "new file"),
            ("size", FormatSize(totalBytes)),
            ("count", (int)(totalBytes / (1024 * 1024))),
            ("medianMs", null),
            ("p99Ms", null),
            ("meanMs", seconds * 1000),
            ("perSecAtMedian", null),
            ("mbPerSec", bandwidth));
        report.AddFact("sequentialWriteMBps", bandwidth);
        report.AddNote("An unmerged durable commit costs at least one write+fdatasync: 1000 / medianMs is the ceiling " +
                       "on serial durable commits per second on this machine. Merged commits share one such flush.");
        report.AddNote("space: preallocated = fallocate'd, never written (the first write converts the blocks, so fdatasync also writes the inode); " +
                       "written = zero-filled and synced before measuring, as the journal zero-fills its files ahead of its records. " +
                       "Other experiments report the written-space 4 KiB median as fdatasyncMedianMs.");
        return Task.FromResult(report);
    }

    /// <summary>
    /// The median write+fdatasync latency of <paramref name="size"/>-byte writes: the figure
    /// every experiment with durable commits prints beside its own. By default into written space,
    /// as the journal's records go (see the class remarks).
    /// </summary>
    internal static LatencySample MeasureDurableWrites(string path, int size, int count, SyncSpace space = SyncSpace.Written)
    {
        var sample = new LatencySample();
        var buffer = new byte[size];
        Random.Shared.NextBytes(buffer);
        using (var file = PosixFileSystem.Instance.Open(path, FileOpenMode.CreateNew))
        {
            // Preallocated and synced first, as a journal file is: each fdatasync then flushes no
            // size change. Written space is also zero-filled and synced first.
            var length = (long)size * count;
            file.Preallocate(length);
            if (space == SyncSpace.Written)
            {
                var zeros = new byte[1024 * 1024];
                for (long offset = 0; offset < length; offset += zeros.Length)
                {
                    file.Write(offset, zeros.AsSpan(0, (int)Math.Min(zeros.Length, length - offset)));
                }
            }

            file.FlushData();
            for (var i = 0; i < count; i++)
            {
                var start = Stopwatch.GetTimestamp();
                file.Write((long)i * size, buffer);
                file.FlushData();
                sample.AddTicks(Stopwatch.GetTimestamp() - start);
            }
        }

        File.Delete(path);
        return sample;
    }

    private static (double Seconds, double MegabytesPerSecond) MeasureSequentialBandwidth(string path, long totalBytes)
    {
        const int chunk = 1024 * 1024;
        var buffer = new byte[chunk];
        Random.Shared.NextBytes(buffer);
        var watch = Stopwatch.StartNew();
        using (var file = PosixFileSystem.Instance.Open(path, FileOpenMode.CreateNew))
        {
            for (long offset = 0; offset < totalBytes; offset += chunk)
            {
                file.Write(offset, buffer);
            }

            file.FlushData();
        }

        var seconds = watch.Elapsed.TotalSeconds;
        File.Delete(path);
        return (seconds, totalBytes / (1024.0 * 1024.0) / seconds);
    }

    private static string FormatSize(long bytes) => bytes switch
    {
        >= 1024 * 1024 => $"{bytes / (1024 * 1024)} MiB",
        >= 1024 => $"{bytes / 1024} KiB",
        _ => $"{bytes} B",
    };
}

/// <summary>Where <see cref="MachineExperiment.MeasureDurableWrites"/> writes: see MachineExperiment's remarks.</summary>
internal enum SyncSpace
{
    /// <summary>fallocate'd and never written.</summary>
    Preallocated,

    /// <summary>Zero-filled and synced before the measured writes.</summary>
    Written,
}
