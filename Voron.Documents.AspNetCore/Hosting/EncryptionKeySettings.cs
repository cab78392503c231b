using Microsoft.Extensions.Configuration;

namespace Voron.Documents.AspNetCore.Hosting;

/// <summary>
/// Encryption keys are never read from configuration: appsettings.json, environment variables and
/// the command line end up in source control, container images, process listings and logs. A
/// key-like setting (a name containing "key", such as <c>Voron:EncryptionKey</c> or
/// <c>Voron:Documents:KeyFile</c>) under the <c>Voron</c> section, or in a store's own section, fails
/// the start, naming the setting but never its value; the key is given in code with
/// <see cref="VoronDocumentStoreBuilder.UseEncryptionKey"/>.
/// </summary>
internal static class EncryptionKeySettings
{
    /// <summary>The section whose key-like settings are refused wherever a store is configured.</summary>
    public const string RootSection = "Voron";

    /// <summary>Throws when the app's configuration holds a key-like setting under <see cref="RootSection"/>.</summary>
    public static void ThrowIfConfigured(IConfiguration? configuration)
    {
        if (configuration is null)
        {
            return;
        }

        var found = configuration.GetSection(RootSection).AsEnumerable().Where(p => p.Value != null).Select(p => p.Key).FirstOrDefault(IsKeyLike);
        if (found != null)
        {
            throw Refusal(found);
        }
    }

    /// <summary>Whether the last segment of a configuration path names a key.</summary>
    public static bool IsKeyLike(string path)
    {
        var name = path[(path.LastIndexOf(':') + 1)..];
        return name.Contains("key", StringComparison.OrdinalIgnoreCase);
    }

    public static InvalidOperationException Refusal(string path) =>
        new($"Voron document store: the configuration holds the setting '{path}', and encryption keys are not read from configuration files " +
            "(they would sit in plain text beside the app). Remove it, and give the key in code: AddVoronDocumentStore(...).UseEncryptionKey(services => " +
            "key), reading the key from a key vault, the OS key store or a file only the service can read.");
}
