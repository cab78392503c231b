using Voron.LoadTests.Engines.Voron;
using Voron.LoadTests.Engines.Lmdb;
using Voron.LoadTests.Engines.Sqlite;

namespace Voron.LoadTests.Engines;

/// <summary>The engines the <c>kv</c> experiment compares, in the order it runs them.</summary>
internal static class KvEngineCatalog
{
    internal const string Sqlite = "sqlite";
    internal const string Lmdb = "lmdb";
    internal const string Voron = "voron";

    internal static IReadOnlyList<KvEngineKind> All { get; } =
    [
        new KvEngineKind(
            Voron,
            "durable journal, fdatasync per commit",
            "default options (StorageEnvironmentOptions.ForDirectory)",
            directory => new VoronKvEngine(directory),
            () => typeof(StorageEnvironment).Assembly.GetName().Version?.ToString() ?? "",
            MissingLibraryNote: ""), // managed: nothing to go missing
        new KvEngineKind(
            Sqlite,
            "WAL, synchronous=FULL (fsync of the WAL per commit)",
            $"Microsoft.Data.Sqlite, kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID, default page size, " +
            $"cache_size={SqliteKvEngine.CacheSizePragma} (256 MiB per connection), prepared commands reused, " +
            "one connection per reader",
            directory => new SqliteKvEngine(directory),
            SqliteKvEngine.LibraryVersion,
            "SQLite skipped: the native e_sqlite3 library could not be loaded"),
        new KvEngineKind(
            Lmdb,
            $"LMDB's default durable mode: environment flags {LmdbKvEngine.OpenFlags} only (no NoSync, NoMetaSync, WriteMap " +
            "or MapAsync), so each commit syncs the data pages, then the meta page",
            $"LightningDB {typeof(LightningDB.LightningEnvironment).Assembly.GetName().Version?.ToString(3)} with the LMDB it ships, " +
            $"map size {LmdbKvEngine.MapSize >> 30} GiB, unnamed main database, plain put (no append flag), one read-only transaction per reader",
            directory => new LmdbKvEngine(directory),
            () => $"{LmdbLibrary.Version()}, loaded {LmdbLibrary.LoadedFrom}",
            "LMDB skipped: the liblmdb that LightningDB ships could not be loaded on this machine"),
    ];
}
