namespace Voron.LoadTests.Engines;

/// <summary>
/// One engine the <c>kv</c> experiment can run: how to open a store in a directory, the durable
/// mode it runs in (a fact of the report), and whether it can run on this machine.
/// </summary>
/// <param name="Name">The engine's name in report rows; matches <see cref="IKvEngine.Name"/>.</param>
/// <param name="Durability">How a commit reaches the disk, in words, for the report.</param>
/// <param name="Settings">The other settings that shape its figures (cache, map size, access path), for the report.</param>
/// <param name="Open">Opens (creates) a store in an existing, empty directory.</param>
/// <param name="Probe">
/// Checks that the engine's native library loads: returns the library's version, or throws
/// <see cref="DllNotFoundException"/> when it cannot be loaded.
/// </param>
/// <param name="MissingLibraryNote">What to print and report when <paramref name="Probe"/> cannot load the library.</param>
internal sealed record KvEngineKind(
    string Name,
    string Durability,
    string Settings,
    Func<string, IKvEngine> Open,
    Func<string> Probe,
    string MissingLibraryNote);
