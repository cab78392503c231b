using Voron.LoadTests.Stores;

namespace Voron.LoadTests.Capabilities.Sql;

/// <summary>The engines of the <c>sql</c> suite, by report name, from every store's <see cref="IStoreAdapter.Sql"/>.</summary>
internal static class SqlEngines
{
    internal const string Voron = "voron";
    internal const string SqliteWal = "sqlite-wal";
    internal const string SqliteRollback = "sqlite-rollback";

    internal static IReadOnlyList<SqlEngineKind> Kinds { get; } = [.. StoreAdapters.All.SelectMany(a => a.Sql)];

    internal static readonly string[] All = [.. Kinds.Select(k => k.Name)];

    /// <summary>Opens engine <paramref name="name"/> in <paramref name="directory"/>.</summary>
    public static ISqlEngine Open(string name, string directory) =>
        (Kinds.SingleOrDefault(k => k.Name == name) ?? throw new ArgumentException($"unknown SQL engine '{name}' (known: {string.Join(", ", All)})", nameof(name))).Open(directory);
}
