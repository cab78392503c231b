using Voron.LoadTests.Stores.Voron;
using Voron.LoadTests.Stores.Lmdb;
using Voron.LoadTests.Stores.Sqlite;
using Voron.LoadTests.Experiments;

namespace Voron.LoadTests.Capabilities;

/// <summary>The engines the experiments compare, in the order they list them.</summary>
internal static class KvEngineCatalog
{
    internal const string Voron = "voron";
    internal const string VoronPortable = "voron-portable";
    internal const string VoronCompact = "voron-compact";
    internal const string Sqlite = "sqlite";
    internal const string SqliteMmap = "sqlite-mmap";
    internal const string Lmdb = "lmdb";

    internal static IReadOnlyList<KvEngineKind> All { get; } =
    [
        new KvEngineKind(
            Voron,
            "Voron.Core",
            "durable journal, one write + fdatasync per commit; the data file written and fdatasync'd by the background flush",
            "default options (StorageEnvironmentOptions.ForDirectory; with --flush-delay, the same over the delaying file system)",
            (directory, disk) => new VoronKvEngine(directory, disk),
            () => typeof(StorageEnvironment).Assembly.GetName().Version?.ToString() ?? "",
            MissingLibraryNote: "", // managed: nothing to go missing
            MainFile: "voron.data"),
        new KvEngineKind(
            VoronPortable,
            "Voron.Core, portable file system",
            "as voron, through .NET's file APIs only (Platform/Portable): fsync (RandomAccess.FlushToDisk) instead of fdatasync, " +
            "SetLength instead of fallocate, the data file mapped by MemoryMappedFile, mapped again as it grows: what Windows and macOS run",
            "StorageEnvironmentOptions.ForDirectory with UsePortableFileSystem = true, otherwise default options",
            (directory, disk) => new VoronKvEngine(directory, disk, portable: true),
            () => typeof(StorageEnvironment).Assembly.GetName().Version?.ToString() ?? "",
            MissingLibraryNote: "",
            MainFile: "voron.data"),
        new KvEngineKind(
            Sqlite,
            "SQLite via Microsoft.Data.Sqlite",
            "WAL, synchronous=FULL: one fsync of the WAL per commit (the bundled SQLite calls fsync, not fdatasync); " +
            "automatic checkpoints (every 1,000 WAL pages) write and fsync the database file inside the commit that triggers them",
            $"Microsoft.Data.Sqlite {typeof(Microsoft.Data.Sqlite.SqliteConnection).Assembly.GetName().Version?.ToString(3)}, kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID, " +
            $"default page size (4 KiB), cache_size={Stores.Sqlite.SqliteStore.CacheSizePragma} (256 MiB per connection), no mmap_size, " +
            "prepared commands reused, INSERT OR REPLACE for puts, one connection per reader",
            (directory, disk) => new SqliteKvEngine(directory, disk, mmap: false),
            SqliteKvEngine.LibraryVersion,
            "SQLite skipped: the native e_sqlite3 library could not be loaded",
            SqliteKvEngine.FileName),
        new KvEngineKind(
            SqliteMmap,
            $"SQLite via Microsoft.Data.Sqlite, mmap_size={Stores.Sqlite.SqliteStore.MmapSize >> 20} MiB",
            "as sqlite",
            $"as sqlite, plus PRAGMA mmap_size={Stores.Sqlite.SqliteStore.MmapSize} on every connection, as a user tuning for reads would set it: " +
            "reads go through a memory map of the database file instead of read() into the page cache",
            (directory, disk) => new SqliteKvEngine(directory, disk, mmap: true),
            SqliteKvEngine.LibraryVersion,
            "SQLite (mmap) skipped: the native e_sqlite3 library could not be loaded",
            SqliteKvEngine.FileName),
        new KvEngineKind(
            Lmdb,
            "LMDB via LightningDB",
            $"LMDB's default durable mode: environment flags {LmdbKvEngine.OpenFlags} only (no NoSync, NoMetaSync, WriteMap " +
            "or MapAsync), so each commit writes its pages, fdatasyncs the data file, then writes the meta page through an O_DSYNC descriptor",
            $"LightningDB {typeof(LightningDB.LightningEnvironment).Assembly.GetName().Version?.ToString(3)} with the LMDB it ships, " +
            $"map size {LmdbKvEngine.MapSize >> 30} GiB, unnamed main database, plain put (no append flag), one read-only transaction per reader",
            (directory, disk) => new LmdbKvEngine(directory, disk),
            () => $"{LmdbLibrary.Version()}, loaded {LmdbLibrary.LoadedFrom}",
            "LMDB skipped: the liblmdb that LightningDB ships could not be loaded on this machine",
            "data.mdb"),
    ];

    /// <summary>
    /// <c>churn</c>'s variant of <c>voron</c>: the same store and writes, closed, compacted
    /// (<see cref="StorageEnvironment.CompactAsync"/>) and reopened after each round's settle. Not
    /// in <see cref="All"/>: the other experiments have no rounds to compact between.
    /// </summary>
    internal static KvEngineKind VoronCompactKind { get; } = new(
        VoronCompact,
        "Voron.Core, compacted once per round",
        "as voron; after each round's settle the store is closed, StorageEnvironment.CompactAsync rewrites it densely and swaps it in, and it is reopened",
        "as voron (StorageEnvironment.CompactAsync with the same options)",
        (directory, disk) => new VoronKvEngine(directory, disk, name: VoronCompact),
        () => typeof(StorageEnvironment).Assembly.GetName().Version?.ToString() ?? "",
        MissingLibraryNote: "",
        MainFile: "voron.data");

    /// <summary><see cref="All"/> with <see cref="VoronCompactKind"/> after <c>voron</c>: the engines of <c>churn</c>.</summary>
    internal static IReadOnlyList<KvEngineKind> WithCompaction { get; } = [All[0], VoronCompactKind, .. All.Skip(1)];

    /// <summary>
    /// The engines among <paramref name="names"/> (all when null) whose libraries load here, with
    /// their versions, durability and settings added to <paramref name="report"/>; a missing one is
    /// printed, noted and left out. <paramref name="candidates"/>: the list to pick from
    /// (<see cref="All"/> when null; <c>churn</c> passes <see cref="WithCompaction"/>).
    /// </summary>
    internal static List<KvEngineKind> Available(ExperimentContext context, Report report, IEnumerable<string>? names = null,
        IReadOnlyList<KvEngineKind>? candidates = null)
    {
        var wanted = names?.ToHashSet(StringComparer.Ordinal);
        if (wanted is { Count: 0 })
        {
            wanted = null; // an option given no names (the command line's empty list) means all
        }

        var available = new List<KvEngineKind>();
        foreach (var kind in (candidates ?? All).Where(k => wanted == null || wanted.Contains(k.Name)))
        {
            string version;
            try
            {
                version = kind.Probe();
            }
            catch (DllNotFoundException)
            {
                context.Output.WriteLine(kind.MissingLibraryNote);
                report.AddNote(kind.MissingLibraryNote);
                continue;
            }

            report.AddFact($"{kind.Name}Label", kind.Label);
            report.AddFact($"{kind.Name}Version", version);
            report.AddFact($"{kind.Name}Durability", kind.Durability);
            report.AddFact($"{kind.Name}Settings", kind.Settings);
            available.Add(kind);
        }

        return available.Count > 0
            ? available
            : throw new InvalidOperationException("No key-value engine can run on this machine.");
    }
}
