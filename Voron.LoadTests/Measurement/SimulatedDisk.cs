using Voron.LoadTests.Measurement.Interop;
using Voron.Platform;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// A slower disk, simulated (<c>--flush-delay MS</c>): a fixed delay added to every durable
/// flush, as if each flush waited that much longer for the device (1 ms is about a cloud block
/// volume, 8 ms a spinning disk). The delay sleeps, so it costs no CPU, as a waiting disk does not.
/// Each store gets it where its own flush happens, inside the locks it holds there, so no store is
/// handed a group commit it does not have:
/// <list type="bullet">
/// <item>Voron (the kv engines, the document store, SQL on <c>Vfs=voron</c>): every
///   <see cref="IStorageFile.FlushData"/> (journal records, the data file) and
///   <see cref="IFileSystem.SyncDirectory"/> goes through <see cref="DelayedFlushFileSystem"/>,
///   the engine's own file I/O interface (<see cref="VoronOptions"/>), so each of its syncs waits.</item>
/// <item>Stock SQLite: every xSync of its files goes through <see cref="SlowSync.SlowSyncVfs"/>, a
///   VFS over the default one (<c>Vfs=</c><see cref="SqliteVfs"/>), which waits before the real
///   fsync: the WAL's sync inside each commit, the checkpoints' syncs of the WAL and the database
///   file alike.</item>
/// <item>LMDB syncs from native code without a file interface to wrap: its adapter sleeps
///   <c>2 × delay</c> after each commit returns, on the one thread that writes (the data pages'
///   fdatasync, then the meta page's O_DSYNC write: the counts the <c>syscalls</c> experiment
///   measures), so the writer is held as two slower syncs would hold it.</item>
/// <item>LiteDB's file streams are its own (no public way to hand it one that delays a flush):
///   its adapter sleeps one delay after each commit, inside the lock that lets one writer in at a
///   time, so the next writer waits as it would for a slower fsync of the log; its checkpoints'
///   flushes are not delayed, in its favour.</item>
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

    /// <summary>
    /// The SQLite VFS to open stock SQLite's connections with (<c>Vfs=</c> this): the default VFS
    /// with every xSync delayed, or null (the default VFS itself) without a delay.
    /// </summary>
    public string? SqliteVfs => IsSimulated ? SlowSync.SlowSyncVfs.For(FlushDelay).Name : null;

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
            report.AddFact("simulatedDisk", $"SIMULATED slower disk: {ms} ms added to every durable flush, where the store makes it. " +
                                            "Voron (kv engines, documents, SQL on Vfs=voron): every fdatasync of its journal and data file, through its file I/O interface. " +
                                            $"Stock SQLite: every xSync, through a pass-through VFS over the default one ({SqliteVfs}): each commit's WAL sync inside its write lock, and the checkpoints' syncs. " +
                                            $"LMDB: a sleep of 2 × {ms} ms after each commit (its fdatasync and its O_DSYNC meta write), on its one writing thread. " +
                                            $"LiteDB: a sleep of {ms} ms after each commit inside the lock its writers take one at a time; its checkpoints' flushes are not delayed");
            report.AddNote($"SIMULATED DISK: every figure of this report ran with {ms} ms added to each durable flush (--flush-delay); " +
                           "the disk baselines (fdatasyncMedianMs ...) are the real disk's, without the delay.");
        }
    }
}
