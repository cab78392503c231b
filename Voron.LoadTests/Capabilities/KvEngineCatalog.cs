using Voron.LoadTests.Experiments;
using Voron.LoadTests.Stores;

namespace Voron.LoadTests.Capabilities;

/// <summary>The key-value engines the experiments compare, from every store's adapter, in the order they list them.</summary>
internal static class KvEngineCatalog
{
    internal const string Voron = "voron";
    internal const string VoronPortable = "voron-portable";
    internal const string VoronCompact = "voron-compact";
    internal const string VoronSealed = "voron-sealed";
    internal const string Sqlite = "sqlite";
    internal const string SqliteMmap = "sqlite-mmap";
    internal const string Lmdb = "lmdb";

    /// <summary>Every store's key-value variants (<see cref="IStoreAdapter.KeyValue"/>), each sealed one after its unsealed twin.</summary>
    internal static IReadOnlyList<KvEngineKind> Every { get; } = [.. StoreAdapters.All.SelectMany(a => a.KeyValue)];

    /// <summary>
    /// Every store's unsealed key-value variants, <c>voron-compact</c> after <c>voron</c>: the
    /// engines of <c>churn</c>.
    /// </summary>
    internal static IReadOnlyList<KvEngineKind> WithCompaction { get; } = [.. Every.Where(k => k.UnsealedTwin == null)];

    /// <summary>Every store's unsealed key-value variants but the compacting one, in <see cref="StoreAdapters.All"/>'s order: the default engines.</summary>
    internal static IReadOnlyList<KvEngineKind> All { get; } = [.. WithCompaction.Where(k => !k.CompactsEachRound)];

    /// <summary>
    /// The engines <c>kv</c> takes: <see cref="All"/> and the sealed variants (<c>voron-sealed</c>),
    /// each after its twin. A sealed one runs when named or with <c>--encrypt</c> (<see cref="SealedTwins"/>).
    /// </summary>
    internal static IReadOnlyList<KvEngineKind> WithSealed { get; } = [.. Every.Where(k => !k.CompactsEachRound)];

    /// <summary>
    /// The engines among <paramref name="names"/> (all when null) whose libraries load here, with
    /// their versions, durability and settings added to <paramref name="report"/>; a missing one is
    /// printed, noted and left out. <paramref name="candidates"/>: the list to pick from
    /// (<see cref="All"/> when null; <c>churn</c> passes <see cref="WithCompaction"/>, <c>kv</c>
    /// <see cref="WithSealed"/>). A sealed variant among the candidates runs when named, or when
    /// <paramref name="encrypt"/> and its twin runs.
    /// </summary>
    internal static List<KvEngineKind> Available(ExperimentContext context, Report report, IEnumerable<string>? names = null,
        IReadOnlyList<KvEngineKind>? candidates = null, bool encrypt = false)
    {
        var pool = candidates ?? All;
        var chosen = SealedTwins.Choose(pool.Select(k => (k.Name, k.UnsealedTwin)), names?.ToList(), encrypt);
        var available = new List<KvEngineKind>();
        foreach (var kind in pool.Where(k => chosen.Contains(k.Name)))
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
