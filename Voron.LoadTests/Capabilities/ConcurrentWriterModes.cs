using Voron.LoadTests.Stores;

namespace Voron.LoadTests.Capabilities;

/// <summary>The modes of the <c>merge</c> suite, by report name, from every store's <see cref="IStoreAdapter.ConcurrentWriters"/>.</summary>
internal static class ConcurrentWriterModes
{
    internal const string Unmerged = "voron-unmerged";
    internal const string Merged = "voron-merged";
    internal const string MergedAsync = "voron-merged-async";
    internal const string PortableUnmerged = "voron-portable-unmerged";
    internal const string PortableMergedAsync = "voron-portable-merged-async";
    internal const string SqliteNaive = "sqlite";
    internal const string SqliteBatched = "sqlite-batched";
    internal const string LmdbNaive = "lmdb";
    internal const string LmdbBatched = "lmdb-batched";

    /// <summary>Every mode, in <see cref="StoreAdapters.All"/>'s order: the closed loop runs them all.</summary>
    internal static IReadOnlyList<ConcurrentWriterKind> All { get; } = [.. StoreAdapters.All.SelectMany(a => a.ConcurrentWriters)];

    /// <summary>The mode named <paramref name="mode"/>.</summary>
    internal static ConcurrentWriterKind Find(string mode) =>
        All.SingleOrDefault(k => k.Mode == mode) ?? throw new ArgumentOutOfRangeException(nameof(mode), mode, "Unknown mode.");
}
