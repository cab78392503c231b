using Voron.LoadTests.Experiments;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// The full grid behind the preflight that every load-test report states (Voron.LoadTests'
/// Measurement/Preflight.cs, which measures the 4 KiB figures and bandwidth): how long one write
/// followed by one sync takes at 4 KiB, 64 KiB and 1 MiB (an unmerged durable commit can be no
/// faster), and the sequential write bandwidth in MiB/s. Each size is measured
/// <list type="bullet">
/// <item>in three places: written (zero-filled) space, where Voron's journal writes its records
///   (J10 in JournalWriter.cs); preallocated (fallocate'd, never written) space, whose first write
///   converts the blocks so the sync also writes the inode; and appended at the end of a growing
///   file, as SQLite's WAL writes until it wraps;</item>
/// <item>with two syncs: fdatasync (Voron, LMDB's data pages) and fsync, which also flushes the
///   inode's timestamps and is what the SQLite that Microsoft.Data.Sqlite bundles calls (its
///   library imports fsync only).</item>
/// </list>
/// </summary>
internal sealed class MachineExperiment : IExperiment
{
    private static readonly (int Size, int Iterations, int QuickIterations)[] Shapes =
    [
        (4 * 1024, 1000, 150),
        (64 * 1024, 500, 60),
        (1024 * 1024, 100, 20),
    ];

    private static readonly SyncSpace[] Spaces = [SyncSpace.Written, SyncSpace.Preallocated, SyncSpace.Appended];
    private static readonly SyncCall[] Calls = [SyncCall.Fdatasync, SyncCall.Fsync];

    public string Name => "machine";

    public string Description => "this machine: write+fdatasync and write+fsync latency (4 KiB, 64 KiB, 1 MiB; written, preallocated, appended space), sequential MiB/s";

    public Task<Report> RunAsync(ExperimentContext context)
    {
        var report = context.NewReport(Name, "Machine: durable write latency and sequential bandwidth");
        report.AddFact("durability", "one write + one sync (fdatasync or fsync) per operation");
        report.AddFact("dataDirectory", context.DataDirectory);
        var directory = context.NewDirectory("machine");
        var medians = new Dictionary<(int, SyncSpace, SyncCall), double>();

        foreach (var (size, iterations, quickIterations) in Shapes)
        {
            var count = context.Quick ? quickIterations : iterations;
            foreach (var space in Spaces)
            {
                foreach (var call in Calls)
                {
                    var measure = call == SyncCall.Fsync ? "write+fsync" : "write+fdatasync";
                    context.Progress($"{measure} of {FormatSize(size)} x {count} into {SpaceName(space)} space");
                    var sample = DurableWriteProbe.Measure(Path.Combine(directory, $"sync-{size}.bin"), size, count, space, call);
                    medians[(size, space, call)] = sample.Median;
                    report.AddRow(
                        ("measure", measure),
                        ("space", SpaceName(space)),
                        ("size", FormatSize(size)),
                        ("count", sample.Count),
                        ("medianMs", sample.Median),
                        ("p99Ms", sample.Percentile(99)),
                        ("meanMs", sample.Mean),
                        ("perSecAtMedian", 1000.0 / sample.Median),
                        ("vsFdatasync", call == SyncCall.Fsync ? sample.Median / medians[(size, space, SyncCall.Fdatasync)] : null),
                        ("mibPerSec", null));
                }
            }
        }

        report.AddFact("fdatasyncMedianMs4k", medians[(4096, SyncSpace.Written, SyncCall.Fdatasync)]);
        report.AddFact("fdatasyncMedianMs4kPreallocated", medians[(4096, SyncSpace.Preallocated, SyncCall.Fdatasync)]);
        report.AddFact("fdatasyncMedianMs4kAppended", medians[(4096, SyncSpace.Appended, SyncCall.Fdatasync)]);
        report.AddFact("fsyncMedianMs4k", medians[(4096, SyncSpace.Written, SyncCall.Fsync)]);
        report.AddFact("fsyncMedianMs4kAppended", medians[(4096, SyncSpace.Appended, SyncCall.Fsync)]);

        var totalBytes = (context.Quick ? 64L : 512L) * 1024 * 1024;
        context.Progress($"sequential write of {FormatSize(totalBytes)} in 1 MiB writes, one fdatasync at the end");
        var (seconds, bandwidth) = DurableWriteProbe.SequentialBandwidth(Path.Combine(directory, "sequential.bin"), totalBytes);
        report.AddRow(
            ("measure", "sequential write"),
            ("space", "new file"),
            ("size", FormatSize(totalBytes)),
            ("count", (int)(totalBytes / (1024 * 1024))),
            ("medianMs", null),
            ("p99Ms", null),
            ("meanMs", seconds * 1000),
            ("perSecAtMedian", null),
            ("vsFdatasync", null),
            ("mibPerSec", bandwidth));
        report.AddFact("sequentialWriteMiBps", bandwidth);
        report.AddNote("An unmerged durable commit costs at least one write and one sync: 1000 / medianMs is the ceiling " +
                       "on serial durable commits per second on this machine. Merged commits share one such flush.");
        report.AddNote("space: written = zero-filled and synced before measuring, as Voron's journal zero-fills its files ahead of its records; " +
                       "preallocated = fallocate'd, never written (the first write converts the blocks, so the sync also writes the inode); " +
                       "appended = each write extends the file (the sync also writes the new size). " +
                       "Every report's preflight prints the 4 KiB figures as fdatasyncMedianMs (written), fdatasyncAppendMedianMs and fsyncAppendMedianMs (appended).");
        report.AddNote("measure: fdatasync flushes the data and the metadata needed to read it; fsync also flushes the inode's timestamps, " +
                       "so in written space it writes the inode on every call. vsFdatasync: the fsync median over the fdatasync median of the same size and space. " +
                       "Voron and LMDB's data pages use fdatasync (LMDB's meta page goes through an O_DSYNC descriptor); the bundled SQLite uses fsync.");
        report.AddNote("mibPerSec: MiB (2^20 bytes) per second.");
        return Task.FromResult(report);
    }

    private static string SpaceName(SyncSpace space) => space switch
    {
        SyncSpace.Written => "written (zero-filled)",
        SyncSpace.Preallocated => "preallocated",
        _ => "appended",
    };

    internal static string FormatSize(long bytes) => bytes switch
    {
        >= 1024 * 1024 => $"{bytes / (1024 * 1024)} MiB",
        >= 1024 => $"{bytes / 1024} KiB",
        _ => $"{bytes} B",
    };
}
