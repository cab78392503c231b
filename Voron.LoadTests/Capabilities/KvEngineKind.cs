namespace Voron.LoadTests.Capabilities;

/// <summary>
/// One engine the experiments can run: how to open a store in a directory, the durable mode it
/// runs in (a fact of the report), and whether it can run on this machine.
/// </summary>
/// <param name="Name">The engine's name in report rows; matches <see cref="IKvEngine.Name"/>.</param>
/// <param name="Label">What the rows measure, in words: the engine and the access path (e.g. "SQLite via Microsoft.Data.Sqlite": per-call ADO.NET cost is part of it).</param>
/// <param name="Durability">How a commit reaches the disk, in words, for the report.</param>
/// <param name="Settings">The other settings that shape its figures (cache, map size, access path), for the report.</param>
/// <param name="Open">Opens (creates) a store in an existing directory, on a disk (real, or with a simulated flush delay).</param>
/// <param name="Probe">
/// Checks that the engine's native library loads: returns the library's version, or throws
/// <see cref="DllNotFoundException"/> when it cannot be loaded.
/// </param>
/// <param name="MissingLibraryNote">What to print and report when <paramref name="Probe"/> cannot load the library.</param>
/// <param name="MainFile">The store's main file in its directory (the one that holds the data once settled), for its size.</param>
/// <param name="CompactsEachRound">
/// Whether the store is compacted after each round (<see cref="ICompactable"/>): <c>churn</c>'s
/// variant only (<see cref="KvEngineCatalog.WithCompaction"/>), since the other suites have no
/// rounds to compact between.
/// </param>
/// <param name="UnsealedTwin">
/// For a sealed variant (a store opened with a key, <c>voron-sealed</c>), the engine it is the
/// same as but for the key; its rows give the ratio to that one's (<see cref="SealedTwins"/>).
/// Null for every other engine.
/// </param>
internal sealed record KvEngineKind(
    string Name,
    string Label,
    string Durability,
    string Settings,
    Func<string, SimulatedDisk, IKvEngine> Open,
    Func<string> Probe,
    string MissingLibraryNote,
    string MainFile,
    bool CompactsEachRound = false,
    string? UnsealedTwin = null)
{
    /// <summary>Opens a store on the real disk.</summary>
    public IKvEngine OpenOnDisk(string directory) => Open(directory, SimulatedDisk.None);
}
