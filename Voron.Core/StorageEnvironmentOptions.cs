using Voron.Platform;
using Voron.Platform.Memory;
using Voron.Platform.Posix;

namespace Voron;

/// <summary>Where a <see cref="StorageEnvironment"/> keeps its files, and its tunables.</summary>
public sealed class StorageEnvironmentOptions
{
    private StorageEnvironmentOptions(string directory, IFileSystem fileSystem, bool inMemory)
    {
        Directory = directory;
        FileSystem = fileSystem;
        InMemory = inMemory;
    }

    /// <summary>A store in <paramref name="directory"/>, created if missing.</summary>
    public static StorageEnvironmentOptions ForDirectory(string directory)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(directory);
        return new StorageEnvironmentOptions(Path.GetFullPath(directory), PosixFileSystem.Instance, inMemory: false);
    }

    /// <summary>
    /// A store that lives in this process's memory and is gone when disposed: for tests and
    /// caches. It runs the same code as a durable store over in-memory files.
    /// </summary>
    public static StorageEnvironmentOptions CreateInMemory() =>
        new("/in-memory/" + Guid.NewGuid().ToString("N"), new InMemoryFileSystem(), inMemory: true)
        {
            MaxDataFileSize = 8L << 30,
        };

    /// <summary>A store over another file system implementation (the crash simulator).</summary>
    internal static StorageEnvironmentOptions ForFileSystem(string directory, IFileSystem fileSystem) =>
        new(directory, fileSystem, inMemory: fileSystem is InMemoryFileSystem);

    /// <summary>The store's directory.</summary>
    public string Directory { get; }

    /// <summary>Whether the store lives in memory only.</summary>
    public bool InMemory { get; }

    internal IFileSystem FileSystem { get; }

    /// <summary>The size new journal files are preallocated to. Default 64 MiB.</summary>
    public long JournalFileSize { get; set; } = 64L << 20;

    /// <summary>
    /// Address space reserved for the data file's mapping, and so the largest the data file may
    /// grow while open. Default 256 GiB (address space only: nothing is committed).
    /// </summary>
    public long MaxDataFileSize { get; set; } = 256L << 30;

    /// <summary>
    /// Whether a background task copies committed pages to the data file on its own. When false,
    /// only <see cref="StorageEnvironment.FlushToDataFile"/> and a clean dispose do. Default true.
    /// </summary>
    public bool BackgroundFlush { get; set; } = true;

    /// <summary>When commits are acknowledged; see <see cref="DurabilityMode"/>. Default <see cref="DurabilityMode.Durable"/>.</summary>
    public DurabilityMode Durability { get; set; } = DurabilityMode.Durable;

    /// <summary>In <see cref="DurabilityMode.Lazy"/> mode, how often the journal is flushed: the most a power loss can take. Default 100 ms.</summary>
    public TimeSpan LazyFlushInterval { get; set; } = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Whether the journal stores, for each modified page, only the bytes that changed since its
    /// previous version (page diffs) instead of the whole page. Default true; off for measurement
    /// and debugging (both forms recover).
    /// </summary>
    public bool JournalPageDiffs { get; set; } = true;

    /// <summary>
    /// Whether journal records are LZ4-compressed when that pays (the rule in Journal/JournalRecord.cs).
    /// Default true; off for measurement and debugging (both forms recover).
    /// </summary>
    public bool JournalCompression { get; set; } = true;

    /// <summary>The background flush starts when this many bytes of committed pages wait for it. Default 32 MiB.</summary>
    public long FlushThresholdBytes { get; set; } = 32L << 20;

    /// <summary>
    /// The most operations the transaction merger puts in one transaction. 1 turns merging off
    /// (one transaction and one journal flush per operation). Default 4096.
    /// </summary>
    public int MaxBatchOperations { get; set; } = 4096;

    /// <summary>A merged transaction stops taking operations once it has modified this many bytes of pages. Default 32 MiB.</summary>
    public long MaxBatchBytes { get; set; } = 32L << 20;

    /// <summary>A merged transaction stops taking operations after running this long. Default 100 ms.</summary>
    public TimeSpan MaxBatchDuration { get; set; } = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Whether the merger runs the next batch while the previous one is written and flushed
    /// (async commit). The order and acknowledgement rules are the same either way. Default true.
    /// </summary>
    public bool AsyncCommit { get; set; } = true;

    /// <summary>How many submitted operations may wait in the merger's queue before submitters wait for room. Default 16384.</summary>
    public int MaxQueuedOperations { get; set; } = 16384;

    /// <summary>The background flush also runs when anything waited this long. Default 1 second.</summary>
    public TimeSpan FlushInterval { get; set; } = TimeSpan.FromSeconds(1);
}
