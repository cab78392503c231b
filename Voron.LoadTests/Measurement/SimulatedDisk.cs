using System.Globalization;
using Voron.LoadTests.Measurement.Interop;
using Voron.LoadTests.Reporting;
using Voron.Platform;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// A slower disk, simulated (<c>--flush-delay MS</c>): a fixed delay added after every durable
/// flush, as if each flush waited that much longer for the device (1 ms is about a cloud block
/// volume, 8 ms a spinning disk). The delay sleeps, so it costs no CPU, as a waiting disk does not.
/// <list type="bullet">
/// <item>Voron: every <see cref="IStorageFile.FlushData"/> (journal records, the data file) and
///   <see cref="IFileSystem.SyncDirectory"/> goes through <see cref="DelayedFlushFileSystem"/>,
///   the engine's own file I/O interface, so each of its syncs waits.</item>
/// <item>SQLite and LMDB sync from native code that this program cannot wrap, so their adapters
///   sleep on the committing thread after each commit returns, before the caller is told, for
///   <c>delay × the syncs that commit made</c>: SQLite (WAL, synchronous=FULL) 1, LMDB 2 (the data
///   pages' fdatasync, then the meta page's O_DSYNC write), the counts the <c>syscalls</c>
///   experiment measures. The writer is held for that time as a slower sync would hold it. What
///   this leaves out is in the peers' favour: SQLite's checkpoints sync the WAL and the database
///   file (about once per 1,000 WAL pages) without a delay.</item>
/// </list>
/// Every report of a run with a delay says so in <c>flushDelayMs</c> and <c>simulatedDisk</c>.
/// </summary>
internal sealed class SimulatedDisk
{
    /// <summary>No delay: the real disk only.</summary>
    public static readonly SimulatedDisk None = new(TimeSpan.Zero);

    public SimulatedDisk(TimeSpan flushDelay)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(flushDelay, TimeSpan.Zero);
        FlushDelay = flushDelay;
    }

    public TimeSpan FlushDelay { get; }

    public bool IsSimulated => FlushDelay > TimeSpan.Zero;

    public double FlushDelayMs => FlushDelay.TotalMilliseconds;

    /// <summary>Waits as one slower sync would (nothing without a delay).</summary>
    public void Delay(int syncs = 1)
    {
        if (IsSimulated)
        {
            PreciseSleep.For(FlushDelay * syncs);
        }
    }

    /// <summary><paramref name="inner"/> with every flush delayed; <paramref name="inner"/> itself without a delay.</summary>
    public IFileSystem Wrap(IFileSystem inner) => IsSimulated ? new DelayedFlushFileSystem(inner, this) : inner;

    /// <summary>
    /// Options for a Voron store in <paramref name="directory"/> on this disk (the real one when
    /// there is no delay), on the platform's default file system, or on the portable one when
    /// <paramref name="portable"/> (the <c>voron-portable</c> engines).
    /// </summary>
    public StorageEnvironmentOptions VoronOptions(string directory, bool portable = false)
    {
        if (IsSimulated)
        {
            var files = portable || !OperatingSystem.IsLinux() ? (Platform.IFileSystem)Platform.Portable.PortableFileSystem.Instance : Platform.Posix.PosixFileSystem.Instance;
            return StorageEnvironmentOptions.ForFileSystem(Path.GetFullPath(directory), Wrap(files));
        }

        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.UsePortableFileSystem = portable;
        return options;
    }

    /// <summary>The report's facts: <c>flushDelayMs</c> always, and <c>simulatedDisk</c> in words when there is a delay.</summary>
    public void AddTo(Report report)
    {
        report.AddFact("flushDelayMs", FlushDelayMs);
        if (IsSimulated)
        {
            var ms = FlushDelayMs.ToString("0.###", CultureInfo.InvariantCulture);
            report.AddFact("simulatedDisk", $"SIMULATED slower disk: {ms} ms added after every durable flush (Voron: every fdatasync of its journal and data file, through its file I/O interface; " +
                                            $"SQLite and LMDB: a sleep after each commit of {ms} ms per sync it made, SQLite 1, LMDB 2; SQLite's checkpoint syncs are not delayed)");
            report.AddNote($"SIMULATED DISK: every figure of this report ran with {ms} ms added to each durable flush (--flush-delay); " +
                           "the disk baselines (fdatasyncMedianMs ...) are the real disk's, without the delay.");
        }
    }
}
