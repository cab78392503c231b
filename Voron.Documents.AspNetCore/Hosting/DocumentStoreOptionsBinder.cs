using System.Globalization;
using Microsoft.Extensions.Configuration;

namespace Voron.Documents.AspNetCore.Hosting;

/// <summary>
/// Binds a configuration section to <see cref="DocumentStoreOptions"/> and
/// <see cref="DocumentStoreHostingOptions"/> by name, without reflection (Native AOT): the
/// configuration binder's source generator cannot bind <see cref="DocumentStoreOptions.SerializerOptions"/>,
/// which is not a configuration value anyway. Strict: a key that is neither options' setting, or a
/// value that does not parse, fails the host's start naming the key — a misspelt <c>Pth</c> is not
/// silently ignored. Voron.Tests checks that every settable property is bound here.
/// </summary>
internal static class DocumentStoreOptionsBinder
{
    private static readonly string[] StoreKeys =
    [
        nameof(DocumentStoreOptions.Path), nameof(DocumentStoreOptions.InMemory), nameof(DocumentStoreOptions.Durability),
        nameof(DocumentStoreOptions.LazyFlushInterval), nameof(DocumentStoreOptions.MaxDocumentBytes),
        nameof(DocumentStoreOptions.CompressionThresholdBytes), nameof(DocumentStoreOptions.OptimisticConcurrency),
        nameof(DocumentStoreOptions.BulkInsertBatchSize), nameof(DocumentStoreOptions.IndexBuildBatchSize),
        nameof(DocumentStoreOptions.ChangeFeed),
        nameof(DocumentStoreOptions.Expiration),
    ];

    private static readonly string[] ExpirationKeys =
    [
        nameof(ExpirationOptions.Enabled), nameof(ExpirationOptions.SweepInterval), nameof(ExpirationOptions.BatchSize), nameof(ExpirationOptions.JsonField),
    ];

    private static readonly string[] ChangeFeedKeys = [nameof(ChangeFeedOptions.Enabled), nameof(ChangeFeedOptions.Retention)];

    private static readonly string[] HostingKeys = [nameof(DocumentStoreHostingOptions.OpenOnStart), nameof(DocumentStoreHostingOptions.SlowCommitThreshold)];

    /// <summary>Every key the section may hold.</summary>
    internal static IReadOnlyList<string> Keys { get; } = [.. StoreKeys, .. HostingKeys];

    public static void Bind(IConfiguration section, DocumentStoreOptions options)
    {
        CheckKeys(section);
        foreach (var child in section.GetChildren())
        {
            if (Match(child.Key) == nameof(DocumentStoreOptions.ChangeFeed))
            {
                BindChangeFeed(child, options.ChangeFeed);
                continue;
            }

            if (Match(child.Key) == nameof(DocumentStoreOptions.Expiration))
            {
                BindExpiration(child, options.Expiration);
                continue;
            }

            if (child.Value is not { } value)
            {
                continue;
            }

            switch (Match(child.Key))
            {
                case nameof(DocumentStoreOptions.Path): options.Path = value; break;
                case nameof(DocumentStoreOptions.InMemory): options.InMemory = Bool(child); break;
                case nameof(DocumentStoreOptions.Durability): options.Durability = Durability(child); break;
                case nameof(DocumentStoreOptions.LazyFlushInterval): options.LazyFlushInterval = Duration(child); break;
                case nameof(DocumentStoreOptions.MaxDocumentBytes): options.MaxDocumentBytes = Int(child); break;
                case nameof(DocumentStoreOptions.CompressionThresholdBytes): options.CompressionThresholdBytes = Int(child); break;
                case nameof(DocumentStoreOptions.OptimisticConcurrency): options.OptimisticConcurrency = Bool(child); break;
                case nameof(DocumentStoreOptions.BulkInsertBatchSize): options.BulkInsertBatchSize = Int(child); break;
                case nameof(DocumentStoreOptions.IndexBuildBatchSize): options.IndexBuildBatchSize = Int(child); break;
            }
        }
    }

    public static void Bind(IConfiguration section, DocumentStoreHostingOptions options)
    {
        foreach (var child in section.GetChildren())
        {
            if (child.Value == null)
            {
                continue;
            }

            switch (Match(child.Key))
            {
                case nameof(DocumentStoreHostingOptions.OpenOnStart): options.OpenOnStart = Bool(child); break;
                case nameof(DocumentStoreHostingOptions.SlowCommitThreshold): options.SlowCommitThreshold = Duration(child); break;
            }
        }
    }

    /// <summary>The <c>ChangeFeed</c> subsection (ChangeFeed:Enabled, ChangeFeed:Retention); strict like the rest.</summary>
    private static void BindChangeFeed(IConfigurationSection section, ChangeFeedOptions options) =>
        BindSubsection(section, ChangeFeedKeys, (key, child) =>
        {
            if (key == nameof(ChangeFeedOptions.Enabled))
            {
                options.Enabled = Bool(child);
            }
            else
            {
                options.Retention = Duration(child);
            }
        });

    /// <summary>The <c>Expiration</c> subsection (<see cref="ExpirationOptions"/>), as strict as the rest.</summary>
    private static void BindExpiration(IConfigurationSection section, ExpirationOptions options) =>
        BindSubsection(section, ExpirationKeys, (key, child) =>
        {
            switch (key)
            {
                case nameof(ExpirationOptions.Enabled): options.Enabled = Bool(child); break;
                case nameof(ExpirationOptions.SweepInterval): options.SweepInterval = Duration(child); break;
                case nameof(ExpirationOptions.BatchSize): options.BatchSize = Int(child); break;
                case nameof(ExpirationOptions.JsonField): options.JsonField = child.Value; break;
            }
        });

    /// <summary>
    /// Binds an options subsection: every key must be one of <paramref name="keys"/> (without case,
    /// as the configuration binder compares), else an error naming it and the keys there are; a
    /// null value leaves the setting as it is.
    /// </summary>
    private static void BindSubsection(IConfigurationSection section, string[] keys, Action<string, IConfigurationSection> set)
    {
        foreach (var child in section.GetChildren())
        {
            var key = keys.FirstOrDefault(k => string.Equals(k, child.Key, StringComparison.OrdinalIgnoreCase))
                ?? throw new InvalidOperationException($"Voron document store: unknown setting '{child.Key}' under '{section.Path}'. The settings there are {string.Join(", ", keys)}.");
            if (child.Value != null)
            {
                set(key, child);
            }
        }
    }

    private static void CheckKeys(IConfiguration section)
    {
        var unknown = section.GetChildren().Select(c => c.Key).Where(k => Match(k) == null).ToList();
        if (unknown.FirstOrDefault(EncryptionKeySettings.IsKeyLike) is { } key)
        {
            throw EncryptionKeySettings.Refusal(section is IConfigurationSection s0 ? $"{s0.Path}:{key}" : key);
        }

        if (unknown.Count > 0)
        {
            var where = section is IConfigurationSection s ? $" under '{s.Path}'" : "";
            throw new InvalidOperationException(
                $"Voron document store: unknown setting{(unknown.Count == 1 ? "" : "s")} {string.Join(", ", unknown.Select(k => $"'{k}'"))}{where}. " +
                $"The settings are {string.Join(", ", Keys)}.");
        }
    }

    /// <summary>Configuration keys compare without case, as the configuration binder's do.</summary>
    private static string? Match(string key) => Keys.FirstOrDefault(k => string.Equals(k, key, StringComparison.OrdinalIgnoreCase));

    private static bool Bool(IConfigurationSection child) =>
        bool.TryParse(child.Value, out var value) ? value : throw Invalid(child, "true or false");

    private static int Int(IConfigurationSection child) =>
        int.TryParse(child.Value, NumberStyles.Integer, CultureInfo.InvariantCulture, out var value) ? value : throw Invalid(child, "a whole number");

    private static TimeSpan Duration(IConfigurationSection child) =>
        TimeSpan.TryParse(child.Value, CultureInfo.InvariantCulture, out var value) ? value : throw Invalid(child, "a duration such as 00:00:00.100");

    private static DurabilityMode Durability(IConfigurationSection child) =>
        Enum.TryParse<DurabilityMode>(child.Value, ignoreCase: true, out var value) && Enum.IsDefined(value)
            ? value
            : throw Invalid(child, string.Join(" or ", Enum.GetNames<DurabilityMode>()));

    private static InvalidOperationException Invalid(IConfigurationSection child, string expected) =>
        new($"Voron document store: the setting '{child.Path}' is '{child.Value}'; it must be {expected}.");
}
