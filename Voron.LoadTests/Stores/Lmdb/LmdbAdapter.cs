using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Stores.Lmdb;

/// <summary>
/// LMDB through LightningDB, opened in its default durable mode by <see cref="LmdbKvEngine"/>:
/// key-value, and the merge suite's naive and batched writers over it.
/// </summary>
internal sealed class LmdbAdapter : IStoreAdapter
{
    private const string Missing = "LMDB skipped: the liblmdb that LightningDB ships could not be loaded on this machine";

    public LmdbAdapter()
    {
        var kv = new KvEngineKind(
            KvEngineCatalog.Lmdb,
            "LMDB via LightningDB",
            $"LMDB's default durable mode: environment flags {LmdbKvEngine.OpenFlags} only (no NoSync, NoMetaSync, WriteMap " +
            "or MapAsync), so each commit writes its pages, fdatasyncs the data file, then writes the meta page through an O_DSYNC descriptor",
            $"LightningDB {typeof(LightningDB.LightningEnvironment).Assembly.GetName().Version?.ToString(3)} with the LMDB it ships, " +
            $"map size {LmdbKvEngine.MapSize >> 30} GiB, unnamed main database, plain put (no append flag), one read-only transaction per reader",
            (directory, disk) => new LmdbKvEngine(directory, disk),
            Version,
            Missing,
            "data.mdb");
        KeyValue = [kv];
        ConcurrentWriters = BatchedPeerWriter.Modes(ConcurrentWriterModes.LmdbNaive, ConcurrentWriterModes.LmdbBatched, kv);
    }

    public string Name => "lmdb";

    public string Version() => $"{LmdbLibrary.Version()}, loaded {LmdbLibrary.LoadedFrom}";

    public string MissingLibraryNote => Missing;

    public IReadOnlyList<KvEngineKind> KeyValue { get; }

    public IReadOnlyList<ConcurrentWriterKind> ConcurrentWriters { get; }
}
