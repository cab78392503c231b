namespace Voron.LoadTests.Measurement;

/// <summary>
/// The three ways this program counts bytes written, read together before and after a workload
/// (subtract the two readings):
/// <list type="bullet">
/// <item><see cref="HandedToWrite"/>: bytes this process passed to write calls (<c>wchar</c> of
///   /proc/self/io), exact, whatever the kernel does with them: the figure the write
///   amplification of the reports uses;</item>
/// <item><see cref="ToStorage"/>: what /proc/self/io says this process sent to storage
///   (<c>write_bytes</c>), counted per page-cache folio dirtied: a 4 KiB page at least, and on
///   kernels whose file systems use large folios (ext4 from Linux 6.16) a whole folio, up to
///   hundreds of KiB, for a small overwrite (docs/results/2026-12-06-code-comment-measurements.md),
///   so it overstates in-place writes;</item>
/// <item><see cref="ToDevice"/>: bytes the block device wrote (<see cref="DeviceIo"/>), the file
///   system's journal included, device-wide: meaningful on a quiet machine only.</item>
/// </list>
/// </summary>
internal readonly record struct WriteCounters(ProcessIo Process, long? DeviceBytes)
{
    public static WriteCounters Read(DeviceIo? device) => new(ProcessIo.Read(), device?.BytesWritten());

    public static WriteCounters operator -(WriteCounters after, WriteCounters before) => new(
        after.Process - before.Process,
        after.DeviceBytes - before.DeviceBytes);

    public static WriteCounters operator +(WriteCounters left, WriteCounters right) => new(
        left.Process + right.Process,
        left.DeviceBytes + right.DeviceBytes);

    public static WriteCounters Subtract(WriteCounters after, WriteCounters before) => after - before;

    public static WriteCounters Add(WriteCounters left, WriteCounters right) => left + right;

    /// <summary>A zero reading with the availability of this machine's counters, to add readings to.</summary>
    public static WriteCounters Zero(DeviceIo? device) => new(new ProcessIo(0, 0, 0, ProcessIo.Read().Available), device is null ? null : 0);

    public long? HandedToWrite => Process.Available ? Process.HandedToWrite : null;

    public long? ToStorage => Process.Available ? Process.WrittenToStorage : null;

    public long? ToDevice => DeviceBytes;

    /// <summary>The report's note on the three counts, for every report that gives them.</summary>
    public static string Note(DeviceIo? device) =>
        "Bytes written, three ways: writeAmplification = bytes handed to write calls (wchar of /proc/self/io: journal, WAL, data file, checkpoints, flushes, " +
        "every thread of this process) over the bytes of keys and values written; storageWriteAmplification = write_bytes of /proc/self/io over the same, counted " +
        "per page-cache folio dirtied, which on kernels with large folios (ext4 from Linux 6.16) counts a whole folio for a small overwrite and so overstates in-place writes; " +
        (device is null
            ? "deviceWriteAmplification is empty: the block device under the data directory was not found."
            : $"deviceWriteAmplification = bytes the block device {device.Device} wrote (/sys/class/block/{device.Device}/stat, the file system's journal included) over the same: " +
              "device-wide, so every other process's writes count too; meaningful on a quiet machine only.");
}
