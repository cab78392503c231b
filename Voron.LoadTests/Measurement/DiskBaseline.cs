using Voron.LoadTests.Experiments;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// The disk's durable-write latency, measured at the start of every experiment with durable
/// commits and printed beside its figures, in the three places the engines write: 4 KiB
/// write+fdatasync into written (zero-filled) space (<c>fdatasyncMedianMs</c>: Voron's journal),
/// 4 KiB write+fdatasync appended to a growing file (<c>fdatasyncAppendMedianMs</c>), and 4 KiB
/// write+fsync appended (<c>fsyncAppendMedianMs</c>: what SQLite's WAL commits do). The
/// <c>machine</c> experiment has the full grid.
/// </summary>
internal static class DiskBaseline
{
    /// <summary>Measures and adds the three facts; returns the written-space fdatasync median (ms).</summary>
    public static double AddTo(Report report, ExperimentContext context)
    {
        var count = context.Quick ? 100 : 500;
        var directory = context.NewDirectory("disk-baseline");
        context.Progress($"disk baseline: 4 KiB write+fdatasync (written space, appended) and write+fsync (appended), {count} each");
        var written = DurableWriteProbe.Measure(Path.Combine(directory, "written.bin"), 4096, count, SyncSpace.Written, SyncCall.Fdatasync);
        var appended = DurableWriteProbe.Measure(Path.Combine(directory, "appended.bin"), 4096, count, SyncSpace.Appended, SyncCall.Fdatasync);
        var fsync = DurableWriteProbe.Measure(Path.Combine(directory, "fsync.bin"), 4096, count, SyncSpace.Appended, SyncCall.Fsync);
        report.AddFact("fdatasyncMedianMs", written.Median);
        report.AddFact("fdatasyncAppendMedianMs", appended.Median);
        report.AddFact("fsyncAppendMedianMs", fsync.Median);
        context.Progress($"disk baseline: fdatasync {written.Median:F3} ms (written space), {appended.Median:F3} ms (appended); fsync {fsync.Median:F3} ms (appended)");
        Directory.Delete(directory, recursive: true);
        return written.Median;
    }
}
