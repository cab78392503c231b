using Voron.LoadTests.Experiments;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// What this machine's disk can do, measured once before every run and stated in every report
/// beside its figures, in the places the engines write: 4 KiB write+fdatasync into written
/// (zero-filled) space (<c>fdatasyncMedianMs</c>: Voron's journal; 1000 over it is the ceiling on
/// serial durable commits per second), 4 KiB write+fdatasync appended to a growing file
/// (<c>fdatasyncAppendMedianMs</c>), 4 KiB write+fsync appended (<c>fsyncAppendMedianMs</c>: what
/// SQLite's WAL commits do), and sequential MiB/s (<c>sequentialWriteMiBps</c>). Voron.Diagnostics'
/// <c>machine</c> has the full grid (sizes, spaces, both syncs).
/// </summary>
/// <param name="FdatasyncMs">Median 4 KiB write+fdatasync into written space.</param>
/// <param name="FdatasyncAppendMs">Median 4 KiB write+fdatasync appended.</param>
/// <param name="FsyncAppendMs">Median 4 KiB write+fsync appended.</param>
/// <param name="SequentialMiBps">Sequential 1 MiB writes and one fdatasync, in MiB/s.</param>
internal sealed record Preflight(double FdatasyncMs, double FdatasyncAppendMs, double FsyncAppendMs, double SequentialMiBps)
{
    /// <summary>Measures in a scratch directory of <paramref name="context"/>, printing what it does.</summary>
    public static Preflight Measure(ExperimentContext context)
    {
        var count = context.Quick ? 100 : 500;
        var directory = context.NewDirectory("preflight");
        context.Progress($"preflight: 4 KiB write+fdatasync (written space, appended) and write+fsync (appended), {count} each; sequential MiB/s");
        var written = DurableWriteProbe.Measure(Path.Combine(directory, "written.bin"), 4096, count, SyncSpace.Written, SyncCall.Fdatasync);
        var appended = DurableWriteProbe.Measure(Path.Combine(directory, "appended.bin"), 4096, count, SyncSpace.Appended, SyncCall.Fdatasync);
        var fsync = DurableWriteProbe.Measure(Path.Combine(directory, "fsync.bin"), 4096, count, SyncSpace.Appended, SyncCall.Fsync);
        var (_, bandwidth) = DurableWriteProbe.SequentialBandwidth(Path.Combine(directory, "sequential.bin"), (context.Quick ? 16L : 128L) << 20);
        var preflight = new Preflight(written.Median, appended.Median, fsync.Median, bandwidth);
        context.Progress($"preflight: fdatasync {written.Median:F3} ms (written space), {appended.Median:F3} ms (appended); fsync {fsync.Median:F3} ms (appended); {bandwidth:F0} MiB/s sequential");
        Directory.Delete(directory, recursive: true);
        return preflight;
    }

    public void AddTo(Report report)
    {
        report.AddFact("fdatasyncMedianMs", FdatasyncMs);
        report.AddFact("fdatasyncAppendMedianMs", FdatasyncAppendMs);
        report.AddFact("fsyncAppendMedianMs", FsyncAppendMs);
        report.AddFact("sequentialWriteMiBps", SequentialMiBps);
    }
}
