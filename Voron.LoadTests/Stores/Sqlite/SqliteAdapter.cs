using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Capabilities.Documents;
using Voron.LoadTests.Capabilities.Orders;
using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Stores.Sqlite;

/// <summary>
/// Stock SQLite through Microsoft.Data.Sqlite, every database opened durably by
/// <see cref="SqliteStore"/>: key-value (with and without mmap), documents as JSON rows, the shop
/// workload in relational tables, SQL in WAL and the rollback journal, and the merge suite's naive
/// and batched writers over its key-value engine.
/// </summary>
internal sealed class SqliteAdapter : IStoreAdapter
{
    private const string Missing = "SQLite skipped: the native e_sqlite3 library could not be loaded";

    public SqliteAdapter()
    {
        var kv = new KvEngineKind(
            KvEngineCatalog.Sqlite,
            "SQLite via Microsoft.Data.Sqlite",
            "WAL, synchronous=FULL: one fsync of the WAL per commit (the bundled SQLite calls fsync, not fdatasync); " +
            "automatic checkpoints (every 1,000 WAL pages) write and fsync the database file inside the commit that triggers them",
            $"Microsoft.Data.Sqlite {typeof(SqliteConnection).Assembly.GetName().Version?.ToString(3)}, kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID, " +
            $"default page size (4 KiB), cache_size={SqliteStore.CacheSizePragma} (256 MiB per connection), no mmap_size, " +
            "prepared commands reused, INSERT OR REPLACE for puts, one connection per reader",
            (directory, disk) => new SqliteKvEngine(directory, disk, mmap: false),
            SqliteKvEngine.LibraryVersion,
            Missing,
            SqliteKvEngine.FileName);
        KeyValue =
        [
            kv,
            new KvEngineKind(
                KvEngineCatalog.SqliteMmap,
                $"SQLite via Microsoft.Data.Sqlite, mmap_size={SqliteStore.MmapSize >> 20} MiB",
                "as sqlite",
                $"as sqlite, plus PRAGMA mmap_size={SqliteStore.MmapSize} on every connection, as a user tuning for reads would set it: " +
                "reads go through a memory map of the database file instead of read() into the page cache",
                (directory, disk) => new SqliteKvEngine(directory, disk, mmap: true),
                SqliteKvEngine.LibraryVersion,
                "SQLite (mmap) skipped: the native e_sqlite3 library could not be loaded",
                SqliteKvEngine.FileName),
        ];
        ConcurrentWriters = BatchedPeerWriter.Modes(ConcurrentWriterModes.SqliteNaive, ConcurrentWriterModes.SqliteBatched, kv);
    }

    public string Name => "sqlite";

    public string Version() => SqliteKvEngine.LibraryVersion();

    public string MissingLibraryNote => Missing;

    public IReadOnlyList<KvEngineKind> KeyValue { get; }

    public IReadOnlyList<DocumentEngineKind> Documents { get; } =
        [new(DocumentEngineCatalog.Sqlite, directory => Task.FromResult<IDocumentEngine>(new SqliteDocumentEngine(directory)))];

    public IReadOnlyList<OrderPathKind> OrderPaths { get; } =
        [new(Capabilities.Orders.OrderPaths.Sqlite, (directory, size, disk) => Task.FromResult<IOrderPath>(SqliteOrderPath.Open(directory, size, disk)))];

    public IReadOnlyList<ConcurrentWriterKind> ConcurrentWriters { get; }

    public IReadOnlyList<SqlEngineKind> Sql { get; } =
    [
        new(SqlEngines.SqliteWal, directory => new SqliteSqlEngine(SqlEngines.SqliteWal, directory, SqliteJournal.Wal)),
        new(SqlEngines.SqliteRollback, directory => new SqliteSqlEngine(SqlEngines.SqliteRollback, directory, SqliteJournal.Rollback)),
    ];
}
