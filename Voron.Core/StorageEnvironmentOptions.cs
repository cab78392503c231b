using Voron.Platform;
using Voron.Platform.Memory;
using Voron.Platform.Portable;
using Voron.Platform.Posix;

namespace Voron;

/// <summary>Where a <see cref="StorageEnvironment"/> keeps its files, and its tunables.</summary>
public sealed class StorageEnvironmentOptions
{
    private readonly IFileSystem? _fileSystem; // null: a real directory, the file system chosen by UsePortableFileSystem

    private StorageEnvironmentOptions(string directory, IFileSystem? fileSystem, bool inMemory)
    {
        Directory = directory;
        _fileSystem = fileSystem;
        InMemory = inMemory;
    }

    /// <summary>
    /// A store in <paramref name="directory"/>, created if missing. On Linux it uses the POSIX fast
    /// path (fdatasync, fallocate, one reserved mapping) unless <see cref="UsePortableFileSystem"/>
    /// is set; on every other OS the portable file system (.NET's own file APIs).
    /// </summary>
    public static StorageEnvironmentOptions ForDirectory(string directory)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(directory);
        return new StorageEnvironmentOptions(Path.GetFullPath(directory), fileSystem: null, inMemory: false);
    }

    /// <summary>
    /// A store that lives in this process's memory and is gone when disposed: for tests and
    /// caches. It runs the same code as a durable store over in-memory files.
    /// </summary>
    public static StorageEnvironmentOptions CreateInMemory() =>
        new("/in-memory/" + Guid.NewGuid().ToString("N"), new InMemoryFileSystem(), inMemory: true)
        {
            MaxDataFileSize = 8L << 30,
            DeleteFilesOnDispose = true,
        };

    /// <summary>
    /// The store's 256-bit encryption key (exactly 32 bytes): a new store is created encrypted with
    /// it; an existing store must have been created with this key, else the open throws
    /// <see cref="EncryptionKeyException"/> and changes nothing. Null (default) = not encrypted.
    /// The key is never written to disk, and the options never show it (no ToString, no log).
    /// Generate one with <c>RandomNumberGenerator.GetBytes(32)</c> and keep it outside the store.
    /// Set this or <see cref="EncryptionKeyProvider"/>, not both (the open throws
    /// <see cref="ArgumentException"/>). docs/encryption.md says what is encrypted.
    /// </summary>
    public byte[]? EncryptionKey { get; set; }

    /// <summary>
    /// Returns the store's 256-bit encryption key, given the store's directory: called once per
    /// open, before anything is read past the header; its result is copied, and the copy is
    /// cleared when the store is disposed (the array it returns stays the caller's). An
    /// exception it throws fails the open unchanged, with nothing written. Use it to fetch the
    /// key from a key vault or the OS key store rather than keep it in the options.
    /// Otherwise as <see cref="EncryptionKey"/>.
    /// </summary>
    public Func<string, byte[]>? EncryptionKeyProvider { get; set; }

    private byte[]? _sealingKey; // set directly: copies the engine makes (backup verification), tests
    private byte[]? _resolvedKey; // the open's pinned copy of the public key (ResolveSealingKey), cleared at dispose

    /// <summary>
    /// The key the engine seals with (Sealing/SealFormat.cs): what was set here directly, else the
    /// key the open resolved from <see cref="EncryptionKey"/> or <see cref="EncryptionKeyProvider"/>,
    /// else <see cref="EncryptionKey"/> itself. Never written to disk, never logged.
    /// </summary>
    internal byte[]? SealingKey
    {
        get => _sealingKey ?? _resolvedKey ?? EncryptionKey;
        set => _sealingKey = value;
    }

    /// <summary>
    /// Called once at each open, with the store's lock held: checks the public key options and
    /// keeps a pinned copy of the key (the provider's result, or <see cref="EncryptionKey"/>) for
    /// <see cref="SealingKey"/> until <see cref="ReleaseSealingKey"/>. Throws
    /// <see cref="ArgumentException"/> (both set; a key that is not 32 bytes or all zeros) or what the
    /// provider throws, having written nothing.
    /// </summary>
    internal void ResolveSealingKey()
    {
        ReleaseSealingKey();
        if (_sealingKey is null)
        {
            _resolvedKey = Sealing.UserKey.Resolve(EncryptionKey, EncryptionKeyProvider, Directory, nameof(EncryptionKey), nameof(EncryptionKeyProvider));
        }
    }

    /// <summary>Clears the copy <see cref="ResolveSealingKey"/> made (SL10): at dispose, and when an open fails.</summary>
    internal void ReleaseSealingKey()
    {
        Sealing.UserKey.Clear(_resolvedKey);
        _resolvedKey = null;
    }

    /// <summary>
    /// An encrypted store's cache of decrypted pages, in bytes (OP3 in Sealing/DecryptedPageCache.cs):
    /// a page is decrypted the first time it is read after it was written and kept here, so a hot
    /// page is decrypted once per version; beyond this size the least recently used entries go
    /// (second chance). A working set larger than the cache decrypts on every miss. 0 keeps none:
    /// every read of a page decrypts it. The spilled versions of the scratch file get a quarter of
    /// it. <see cref="StoreStatistics.DecryptedPages"/> shows its use. Default 256 MiB; at least 0.
    /// Ignored by a store that is not encrypted. docs/encryption.md.
    /// </summary>
    public long DecryptedPageCacheSize
    {
        get => _decryptedPageCacheSize;
        set
        {
            ArgumentOutOfRangeException.ThrowIfNegative(value);
            _decryptedPageCacheSize = value;
        }
    }

    private long _decryptedPageCacheSize = Sealing.SealedPages.DefaultCacheBytes;

    /// <summary>
    /// Whether disposing the store deletes its files: set by <see cref="CreateInMemory"/>, whose
    /// file system nobody else can reach, so its memory goes back to the OS at Dispose (LC7).
    /// </summary>
    internal bool DeleteFilesOnDispose { get; private init; }

    /// <summary>A store over another file system implementation (the crash simulator).</summary>
    internal static StorageEnvironmentOptions ForFileSystem(string directory, IFileSystem fileSystem) =>
        new(directory, fileSystem, inMemory: fileSystem is InMemoryFileSystem);

    /// <summary>The store's directory.</summary>
    public string Directory { get; }

    /// <summary>Whether the store lives in memory only.</summary>
    public bool InMemory { get; }

    /// <summary>
    /// Whether a <see cref="ForDirectory"/> store uses the portable file system (.NET's
    /// <see cref="RandomAccess"/>, <c>FlushToDisk</c>, <c>MemoryMappedFile</c>) rather than the
    /// POSIX fast path. Only Linux has the fast path, so this matters only there: set it to test or
    /// measure the layer Windows and macOS run on. No effect on in-memory stores. Default false.
    /// docs/durability.md says what each platform promises on a power loss.
    /// </summary>
    public bool UsePortableFileSystem { get; set; }

    internal IFileSystem FileSystem =>
        _fileSystem ?? (UsePortableFileSystem || !OperatingSystem.IsLinux() ? PortableFileSystem.Instance : PosixFileSystem.Instance);

    /// <summary>The size new journal files are preallocated to. Default 64 MiB.</summary>
    public long JournalFileSize { get; set; } = 64L << 20;

    /// <summary>
    /// A directory that receives every journal file once the data file no longer needs it, instead
    /// of the file being deleted: with a full backup (<see cref="StorageEnvironment.BackupAsync"/>)
    /// it lets <see cref="StorageEnvironment.RestoreAsync"/> restore to any transaction since.
    /// Null (default) = journal files are deleted. Prune it with <see cref="JournalArchive.Prune"/>.
    /// Give it to <see cref="StorageEnvironment.CompactAsync"/> too: the compaction then archives
    /// the store's last journal files before it replaces them.
    /// </summary>
    public string? JournalArchiveDirectory { get; set; }

    /// <summary>
    /// Where the journal archive is shipped beyond this machine (a <see cref="DirectoryArchiveDestination"/>,
    /// or an S3 or Azure Blob destination from Voron.ObjectStorage). Needs
    /// <see cref="JournalArchiveDirectory"/>, which stays the source of truth: a background task
    /// uploads its finished files in order (<see cref="StorageEnvironment.ArchiveShipping"/> says how
    /// far). A destination that is down never blocks or fails a commit; the lag grows and is caught
    /// up later. Upload backups with <see cref="ObjectArchive.UploadSnapshotAsync"/>. Null (default) = no shipping.
    /// </summary>
    public IArchiveDestination? ArchiveDestination { get; set; }

    /// <summary>How often the background task looks for archived files to ship (default 1 s); after a failure it waits longer, up to a minute.</summary>
    public TimeSpan ArchiveShippingInterval { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>False: only StorageEnvironment.ShipArchiveAsync ships, and only ReleaseAgedJournalFile leaves aged journal files (tests that drive each step).</summary>
    internal bool ShipArchiveInBackground { get; set; } = true;

    /// <summary>
    /// How long the writer's lease on the archive's lineage lasts (default 1 minute): renewed every
    /// shipping pass, taken over by another copy of the store only after it expired (LS1..LS8,
    /// docs/object-storage.md). Keep it above the time one journal file takes to upload, and well
    /// above the clock difference between the machines.
    /// </summary>
    public TimeSpan ArchiveLeaseDuration { get; set; } = TimeSpan.FromMinutes(1);

    /// <summary>The clock the lease's expiry is read from (tests move it instead of waiting).</summary>
    internal TimeProvider ArchiveLeaseClock { get; set; } = TimeProvider.System;

    /// <summary>
    /// With an <see cref="ArchiveDestination"/>: how old the first record of the current journal
    /// file may get before the store starts a new file and releases (archives, then ships) the
    /// old one, so the destination trails the store by about this much rather than by a whole
    /// journal file. Default 500 ms. Each release costs a new journal file, a flush of the data
    /// file and a header write, and gives one object in the destination: at most one per delay
    /// while the store is written (172,800 a day at 500 ms), none while it is idle
    /// (docs/object-storage.md). <see cref="Timeout.InfiniteTimeSpan"/> = only full files are
    /// released; <see cref="TimeSpan.Zero"/> = as soon as a file holds a record.
    /// </summary>
    public TimeSpan ArchiveMaxDelay { get; set; } = TimeSpan.FromMilliseconds(500);

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

    /// <summary>
    /// How recovery treats damage at the end of the journal: discard a record a crash tore, report
    /// anything else (<see cref="Voron.JournalTailRecovery.DiscardTornWrite"/>, the default); report
    /// every damage, torn writes too (<see cref="Voron.JournalTailRecovery.Strict"/>); or discard a
    /// damaged last record whatever the damage (<see cref="Voron.JournalTailRecovery.DiscardAnyDamage"/>,
    /// for disks that do not write sectors whole). docs/durability.md has the details.
    /// </summary>
    public JournalTailRecovery JournalTailRecovery { get; set; } = JournalTailRecovery.DiscardTornWrite;

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

    /// <summary>
    /// The background flush starts when the committed pages waiting for it (summed per
    /// transaction) reach this many bytes, and runs again at once if commits made during a flush
    /// brought the backlog back to it. Default 32 MiB.
    /// </summary>
    public long FlushThresholdBytes { get; set; } = 32L << 20;

    /// <summary>
    /// The most bytes of committed page versions kept in memory while they wait for the data
    /// file. Normally the background flush keeps far less (about <see cref="FlushThresholdBytes"/>);
    /// a long-lived read transaction stops flushing, and the versions it holds back beyond this
    /// budget move to the scratch file (<c>voron.scratch</c> in the store's directory), so such a
    /// reader costs disk rather than memory. Default 256 MiB: eight times the default flush
    /// threshold plus a largest merged batch, so a store that flushes normally never spills.
    /// At least 8 KiB (one page); page bytes only, not bookkeeping.
    /// </summary>
    public long MaxPageVersionMemory
    {
        get => _maxPageVersionMemory;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, Constants.PageSize);
            _maxPageVersionMemory = value;
        }
    }

    private long _maxPageVersionMemory = 256L << 20;

    /// <summary>
    /// The most operations the transaction merger puts in one transaction. 1 turns merging off
    /// (one transaction and one journal flush per operation). Default 4096.
    /// </summary>
    public int MaxBatchOperations { get; set; } = 4096;

    /// <summary>
    /// A merged transaction stops taking operations once its pages (an overflow run counts every
    /// page) hold this many bytes; an operation that alone adds this much runs in a transaction of
    /// its own. So a merged transaction holds less than twice this, or one operation.
    /// 8 KiB..512 MiB, default 32 MiB.
    /// </summary>
    public long MaxBatchBytes
    {
        get => _maxBatchBytes;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, Constants.PageSize);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(value, 512L << 20); // twice this stays far below the 2 GiB record limit
            _maxBatchBytes = value;
        }
    }

    private long _maxBatchBytes = 32L << 20;

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

    /// <summary>
    /// Where new pages go: <see cref="Voron.AllocationPolicy.Sections"/> (default) keeps a flush's
    /// pages in few places of the data file; <see cref="Voron.AllocationPolicy.FirstFit"/> takes
    /// the lowest free run, for comparison. Either can open any store.
    /// </summary>
    public AllocationPolicy AllocationPolicy { get; set; } = AllocationPolicy.Sections;

    /// <summary>
    /// Sections policy: when the active 4 MiB section (512 pages) has no room, the next section
    /// must have at least this many free pages, else the file grows instead. Higher keeps flushes
    /// more contiguous; lower reuses space sooner. 1..512, default 256.
    /// </summary>
    public int MinFreePagesToSwitch
    {
        get => _minFreePagesToSwitch;
        set => _minFreePagesToSwitch = InRange(value, 1, 512);
    }

    /// <summary>
    /// Sections policy: having found the next section with <see cref="MinFreePagesToSwitch"/>
    /// free pages, look at up to this many sections after it (forward, ~4 MiB each) and take the
    /// one with the most free pages. 0 takes the first. Default 256 (about 1 GiB of file).
    /// </summary>
    public int MaxSectionsToScan
    {
        get => _maxSectionsToScan;
        set => _maxSectionsToScan = InRange(value, 0, int.MaxValue - 1);
    }

    /// <summary>
    /// Sections policy, a soft bound on wasted space: when no section qualifies but free pages
    /// already make up at least this percentage of the data file, take the section with the most
    /// free pages rather than growing the file. 0..100, default 20.
    /// </summary>
    public int MaxFreeSpacePercent
    {
        get => _maxFreeSpacePercent;
        set => _maxFreeSpacePercent = InRange(value, 0, 100);
    }

    /// <summary>
    /// Receives one line per flush to the data file, shaped as
    /// <c>Flush 1,154 with 159 pages - 1,272 kb writes and 2 seeks (107 leaves, 52 branches, 0 overflows)</c>
    /// (<see cref="FlushStatistics.ToLogLine"/>). Runs on the flushing thread after the flush;
    /// keep it quick. Exceptions it throws are ignored. Default none.
    /// </summary>
    public Action<string>? FlushLog { get; set; }

    /// <summary>Receives the statistics of every flush to the data file, as <see cref="FlushLog"/> does its line. Default none.</summary>
    public Action<FlushStatistics>? OnFlush { get; set; }

    /// <summary>
    /// Test hook: called at each step of every flush (<see cref="Flushing.FlushStep"/>), on the
    /// flushing thread, inside the flush lock. Tests pause there to race readers and commits
    /// against the flush, or throw to fail it. Null (inert) outside tests.
    /// </summary>
    internal Action<Flushing.FlushStep>? FlushHook { get; set; }

    /// <summary>
    /// Whether the flush writes only the 4 KiB units of a page its commits changed (FL10,
    /// Flushing/FlushUnits.cs). On by default; off writes every page whole — the A/B switch, and
    /// the reference the flush-unit tests compare the data file with.
    /// </summary>
    internal bool FlushChangedUnitsOnly { get; set; } = true;

    /// <summary>
    /// IP3 (Transactions/InPlacePages.cs): a durable commit whose new pages add up to at least
    /// this many bytes writes them in place in the data file and syncs it before its journal
    /// record, which names them instead of carrying them. 4 MiB by default; long.MaxValue turns
    /// the path off. Never used in lazy durability or with a journal archive (IP2, IP6).
    /// </summary>
    internal long InPlaceNewPagesThreshold { get; set; } = Transactions.InPlacePages.DefaultThreshold;

    /// <summary>
    /// The clock a commit's time (the journal record's CommitTime, which point-in-time restore
    /// reads) and a backup manifest's creation time come from; the journal has none of its own
    /// (J9). The system clock by default; tests move one by hand instead of sleeping.
    /// </summary>
    internal TimeProvider Clock { get; set; } = TimeProvider.System;

    /// <summary>
    /// Whether page buffers that left the page table are handed to later copy-on-write copies
    /// (Transactions/PageBufferPool.cs). On by default; off allocates every copy — the A/B switch,
    /// set in code by a test or a measurement that compares the two (a library reads no
    /// environment variables: Voron.Tests/Codebase/LibraryEnvironmentTests.cs).
    /// </summary>
    internal bool RecyclePageBuffers { get; set; } = true;

    /// <summary>
    /// Test hook: called at each step of every commit (<see cref="Transactions.CommitStep"/>) on
    /// the committing thread. Tests throw there to fail a commit at that step. Null (inert)
    /// outside tests.
    /// </summary>
    internal Action<Transactions.CommitStep>? CommitHook { get; set; }

    /// <summary>
    /// Whether a lone writer's merged operation may run on its submitting thread (merger MG1–MG4):
    /// the AppContext switch <c>Voron.Merger.CallerRuns</c> (on unless set to false) when the
    /// options are made; tests that need every operation queued turn it off for one store.
    /// </summary>
    internal bool CallerRuns { get; set; } = !AppContext.TryGetSwitch(Transactions.TransactionMerger.CallerRunsSwitch, out var enabled) || enabled;

    /// <summary>
    /// Called once when the store fails (fail-stop: <see cref="StorageEnvironment.IsFailed"/>),
    /// with the exception that stopped it, on a thread-pool thread (never inside the engine's
    /// locks, so it may dispose the store). Exceptions it throws are ignored. Default none.
    /// </summary>
    public Action<Exception>? OnFailure { get; set; }

    /// <summary>
    /// A read transaction whose snapshot is older than this while later commits wait for the
    /// flush it holds back is reported to <see cref="OnLongReader"/>. Default 1 minute.
    /// </summary>
    public TimeSpan LongReaderThreshold { get; set; } = TimeSpan.FromMinutes(1);

    /// <summary>
    /// Warned, at most once per <see cref="LongReaderThreshold"/>, while the oldest live read
    /// transaction is older than the threshold and holds commits back from the data file
    /// (<see cref="SnapshotPin"/>: its age, and the transactions and bytes it keeps out of the
    /// data file — in memory up to <see cref="MaxPageVersionMemory"/>, then in the scratch file —
    /// and in the journal). Called by the background flush (needs <see cref="BackgroundFlush"/>) on
    /// its thread; keep it quick; exceptions it throws are ignored. Default none; the same figures
    /// are the metrics <c>voron.reader.oldest_age</c> and <c>voron.reader.held_back_bytes</c>.
    /// </summary>
    public Action<SnapshotPin>? OnLongReader { get; set; }

    private int _minFreePagesToSwitch = 256;
    private int _maxSectionsToScan = 256;
    private int _maxFreeSpacePercent = 20;

    private static int InRange(int value, int min, int max, [System.Runtime.CompilerServices.CallerMemberName] string name = "")
    {
        if (value < min || value > max)
        {
            throw new ArgumentOutOfRangeException(name, value, $"{name} must be between {min} and {max}.");
        }

        return value;
    }
}
