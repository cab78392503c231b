using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Capabilities.Documents;
using Voron.LoadTests.Capabilities.Orders;
using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Stores;

/// <summary>
/// One store the suites compare (Voron, SQLite, LiteDB, LMDB), described in one place and opened
/// durably by the types of its own folder: its name, the library it runs and its version, and the
/// capabilities it has. Suites never name a store's types: they pick from the catalogs
/// (<see cref="KvEngineCatalog"/>, <see cref="DocumentEngineCatalog"/>, <see cref="OrderPaths"/>,
/// <see cref="ConcurrentWriterModes"/>, <see cref="SqlEngines"/>), which list every adapter's
/// capabilities in <see cref="StoreAdapters.All"/>'s order. A capability the store lacks is empty.
/// </summary>
/// <remarks>
/// A new peer is one folder under <c>Stores/</c> with its adapter, added to
/// <see cref="StoreAdapters.All"/>: its variants then run in every suite whose capability it has.
/// </remarks>
internal interface IStoreAdapter
{
    /// <summary>The store's name (<c>voron</c>, <c>sqlite</c>, <c>litedb</c>, <c>lmdb</c>).</summary>
    string Name { get; }

    /// <summary>
    /// The library the suites drive and its version; loads the library, so it throws
    /// <see cref="DllNotFoundException"/> when a native library cannot be loaded on this machine.
    /// </summary>
    string Version();

    /// <summary>What a run prints and reports when <see cref="Version"/> cannot load the library; empty for a managed store.</summary>
    string MissingLibraryNote { get; }

    /// <summary>Key-value variants (<see cref="IKvEngine"/>), in the order the reports list them.</summary>
    IReadOnlyList<KvEngineKind> KeyValue => [];

    /// <summary>Document stores (<see cref="IDocumentEngine"/>) of the <c>documents</c> suite.</summary>
    IReadOnlyList<DocumentEngineKind> Documents => [];

    /// <summary>Paths of the shop workload (<see cref="IOrderPath"/>) of <c>compare</c>.</summary>
    IReadOnlyList<OrderPathKind> OrderPaths => [];

    /// <summary>Ways many callers write at once (<see cref="IConcurrentWriter"/>) of <c>merge</c>.</summary>
    IReadOnlyList<ConcurrentWriterKind> ConcurrentWriters => [];

    /// <summary>SQL databases (<see cref="ISqlEngine"/>) of the <c>sql</c> suite.</summary>
    IReadOnlyList<SqlEngineKind> Sql => [];

    /// <summary>A document store with a change feed (<see cref="IChangeFeedEngine"/>), with the feed on or off; null without one.</summary>
    Func<string, bool, Task<IChangeFeedEngine>>? ChangeFeed => null;
}
