using Voron.LoadTests.Stores;

namespace Voron.LoadTests.Capabilities.Documents;

/// <summary>The engines of the documents experiment, by their report names, from every store's <see cref="IStoreAdapter.Documents"/>.</summary>
internal static class DocumentEngineCatalog
{
    public const string Voron = "voron";

    /// <summary>Voron.Documents over a sealed store: <see cref="Voron"/> opened with a key.</summary>
    public const string VoronSealed = "voron-sealed";

    /// <summary>The engine floor: Voron.Core's merger putting the bytes a document save stores.</summary>
    public const string VoronKv = "voron-kv";

    public const string Sqlite = "sqlite";
    public const string LiteDb = "litedb";

    /// <summary>
    /// Every engine, each sealed variant after its twin, in <see cref="StoreAdapters.All"/>'s order:
    /// the order the experiment opens them in and lists their rows.
    /// </summary>
    public static IReadOnlyList<DocumentEngineKind> WithSealed { get; } = [.. StoreAdapters.All.SelectMany(a => a.Documents)];

    /// <summary>Every unsealed engine: the default ones (a sealed one runs when named or with --encrypt).</summary>
    public static IReadOnlyList<DocumentEngineKind> All { get; } = [.. WithSealed.Where(k => k.UnsealedTwin == null)];

    /// <summary>
    /// A document store with its change feed on or off, in <paramref name="directory"/>: the first
    /// store that has one (<see cref="IStoreAdapter.ChangeFeed"/>).
    /// </summary>
    public static Task<IChangeFeedEngine> OpenChangeFeedAsync(string directory, bool changeFeed) =>
        (StoreAdapters.All.Select(a => a.ChangeFeed).FirstOrDefault(f => f != null) ?? throw new InvalidOperationException("No store has a change feed."))(directory, changeFeed);
}
