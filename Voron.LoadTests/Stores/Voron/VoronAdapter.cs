using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Capabilities.Documents;
using Voron.LoadTests.Capabilities.Orders;
using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// Voron, the store under test: Voron.Core (key-value, the merger's modes), Voron.Documents
/// (documents, their change feed, the shop workload through sessions) and Voron.SqliteVfs (SQL,
/// the shop workload in relational tables and over documents), each opened by
/// <see cref="VoronStore"/>.
/// </summary>
internal sealed class VoronAdapter : IStoreAdapter
{
    public string Name => "voron";

    public string Version() => LibraryVersion();

    public string MissingLibraryNote => ""; // managed: nothing to go missing

    public IReadOnlyList<KvEngineKind> KeyValue { get; } =
    [
        new KvEngineKind(
            KvEngineCatalog.Voron,
            "Voron.Core",
            "durable journal, one write + fdatasync per commit; the data file written and fdatasync'd by the background flush",
            "default options (StorageEnvironmentOptions.ForDirectory; with --flush-delay, the same over the delaying file system)",
            (directory, disk) => new VoronKvEngine(directory, disk),
            LibraryVersion,
            MissingLibraryNote: "",
            MainFile: "voron.data"),
        new KvEngineKind(
            KvEngineCatalog.VoronSealed,
            "Voron.Core, sealed (encrypted at rest)",
            "as voron: durable journal, one write + fdatasync per commit; the data file written and fdatasync'd by the background flush",
            $"as voron, {VoronStore.Sealing}",
            (directory, disk) => new VoronKvEngine(directory, disk, name: KvEngineCatalog.VoronSealed, sealingKey: VoronStore.NewSealingKey()),
            LibraryVersion,
            MissingLibraryNote: "",
            MainFile: "voron.data",
            UnsealedTwin: KvEngineCatalog.Voron),
        new KvEngineKind(
            KvEngineCatalog.VoronCompact,
            "Voron.Core, compacted once per round",
            "as voron; after each round's settle the store is closed, StorageEnvironment.CompactAsync rewrites it densely and swaps it in, and it is reopened",
            "as voron (StorageEnvironment.CompactAsync with the same options)",
            (directory, disk) => new VoronKvEngine(directory, disk, name: KvEngineCatalog.VoronCompact),
            LibraryVersion,
            MissingLibraryNote: "",
            MainFile: "voron.data",
            CompactsEachRound: true),
        new KvEngineKind(
            KvEngineCatalog.VoronPortable,
            "Voron.Core, portable file system",
            "as voron, through .NET's file APIs only (Platform/Portable): fsync (RandomAccess.FlushToDisk) instead of fdatasync, " +
            "SetLength instead of fallocate, the data file mapped by MemoryMappedFile, mapped again as it grows: what Windows and macOS run",
            "StorageEnvironmentOptions.ForDirectory with UsePortableFileSystem = true, otherwise default options",
            (directory, disk) => new VoronKvEngine(directory, disk, portable: true),
            LibraryVersion,
            MissingLibraryNote: "",
            MainFile: "voron.data"),
    ];

    public IReadOnlyList<DocumentEngineKind> Documents { get; } =
    [
        new(DocumentEngineCatalog.Voron, async directory => await VoronDocumentEngine.OpenAsync(directory).ConfigureAwait(false)),
        new(DocumentEngineCatalog.VoronSealed,
            async directory => await VoronDocumentEngine.OpenAsync(directory, sealingKey: VoronStore.NewSealingKey()).ConfigureAwait(false),
            UnsealedTwin: DocumentEngineCatalog.Voron),
        new(DocumentEngineCatalog.VoronKv, directory => Task.FromResult<IDocumentEngine>(new VoronKvDocumentEngine(directory))),
    ];

    public Func<string, bool, Task<IChangeFeedEngine>>? ChangeFeed { get; } =
        async (directory, changeFeed) => await VoronDocumentEngine.OpenAsync(directory, changeFeed).ConfigureAwait(false);

    public IReadOnlyList<OrderPathKind> OrderPaths { get; } =
    [
        new(Capabilities.Orders.OrderPaths.Documents, async (directory, size, disk) => await DocumentsOrderPath.OpenAsync(directory, size, disk).ConfigureAwait(false)),
        new(Capabilities.Orders.OrderPaths.DocumentsSealed,
            async (directory, size, disk) => await DocumentsOrderPath.OpenAsync(directory, size, disk, VoronStore.NewSealingKey()).ConfigureAwait(false),
            UnsealedTwin: Capabilities.Orders.OrderPaths.Documents),
        new(Capabilities.Orders.OrderPaths.SqlVoron, (directory, size, disk) => Task.FromResult<IOrderPath>(SqlVoronOrderPath.Open(directory, size, disk))),
        new(Capabilities.Orders.OrderPaths.SqlVoronSealed,
            (directory, size, disk) => Task.FromResult<IOrderPath>(SqlVoronOrderPath.Open(directory, size, disk, VoronStore.NewSealingKey())),
            UnsealedTwin: Capabilities.Orders.OrderPaths.SqlVoron),
        new(Capabilities.Orders.OrderPaths.SqlDocs, async (directory, size, disk) => await SqlDocsOrderPath.OpenAsync(directory, size, disk).ConfigureAwait(false)),
        new(Capabilities.Orders.OrderPaths.SqlDocsSealed,
            async (directory, size, disk) => await SqlDocsOrderPath.OpenAsync(directory, size, disk, VoronStore.NewSealingKey()).ConfigureAwait(false),
            UnsealedTwin: Capabilities.Orders.OrderPaths.SqlDocs),
    ];

    public IReadOnlyList<ConcurrentWriterKind> ConcurrentWriters { get; } =
    [
        Merger(ConcurrentWriterModes.Unmerged, openLoop: false, portable: false, merged: false, asyncCommit: false),
        Merger(ConcurrentWriterModes.Merged, openLoop: true, portable: false, merged: true, asyncCommit: false),
        Merger(ConcurrentWriterModes.MergedAsync, openLoop: true, portable: false, merged: true, asyncCommit: true),
        Merger(ConcurrentWriterModes.PortableUnmerged, openLoop: false, portable: true, merged: false, asyncCommit: false),
        Merger(ConcurrentWriterModes.PortableMergedAsync, openLoop: false, portable: true, merged: true, asyncCommit: true),
    ];

    public IReadOnlyList<SqlEngineKind> Sql { get; } = [new(SqlEngines.Voron, directory => new VoronSqlEngine(directory))];

    private static string LibraryVersion() => typeof(StorageEnvironment).Assembly.GetName().Version?.ToString() ?? "";

    private static ConcurrentWriterKind Merger(string mode, bool openLoop, bool portable, bool merged, bool asyncCommit) =>
        new(mode, openLoop, Peer: null, (directory, disk) => VoronMergedWriter.Open(mode, disk.VoronOptions(directory, portable), merged, asyncCommit));
}
