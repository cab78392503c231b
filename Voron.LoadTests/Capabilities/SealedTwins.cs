namespace Voron.LoadTests.Capabilities;

/// <summary>
/// Sealed variants: a Voron engine, document store or order path opened with a key
/// (<c>StorageEnvironmentOptions.SealingKey</c>), declared in the adapter right after its
/// unsealed twin and otherwise opened alike. A suite's default run leaves them out (its figures
/// stay comparable with earlier runs); a run takes one when it is named, or with <c>--encrypt</c>,
/// which adds the twin of every chosen engine beside it, so both rows come from one run.
/// </summary>
internal static class SealedTwins
{
    /// <summary>
    /// The names to run, in <paramref name="catalog"/>'s order: <paramref name="names"/> (null or
    /// empty: every entry without a twin), and with <paramref name="encrypt"/> every sealed entry
    /// whose twin is among them.
    /// </summary>
    /// <param name="catalog">Each entry's name and, for a sealed one, its unsealed twin's.</param>
    public static HashSet<string> Choose(IEnumerable<(string Name, string? UnsealedTwin)> catalog, IReadOnlyCollection<string>? names, bool encrypt)
    {
        var entries = catalog.ToList();
        var wanted = names is { Count: > 0 } // an option given no names (the command line's empty list) means all
            ? names.ToHashSet(StringComparer.Ordinal)
            : entries.Where(e => e.UnsealedTwin == null).Select(e => e.Name).ToHashSet(StringComparer.Ordinal);
        return entries.Where(e => wanted.Contains(e.Name) || (encrypt && e.UnsealedTwin is { } twin && wanted.Contains(twin)))
            .Select(e => e.Name).ToHashSet(StringComparer.Ordinal);
    }

    /// <summary><see cref="Choose"/>'s names as a list in <paramref name="catalog"/>'s order.</summary>
    public static string[] InOrder(IEnumerable<(string Name, string? UnsealedTwin)> catalog, IReadOnlyCollection<string>? names, bool encrypt)
    {
        var entries = catalog.ToList();
        var chosen = Choose(entries, names, encrypt);
        return [.. entries.Select(e => e.Name).Where(chosen.Contains)];
    }
}
