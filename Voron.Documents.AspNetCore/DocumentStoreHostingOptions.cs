namespace Voron.Documents.AspNetCore;

/// <summary>
/// How the app hosts a document store, beside <see cref="DocumentStoreOptions"/> (which say how the
/// store itself behaves). Bound from the same configuration section; the index and environment
/// settings come from <see cref="VoronDocumentStoreBuilder"/>.
/// </summary>
public sealed class DocumentStoreHostingOptions
{
    /// <summary>
    /// Open the store (and ensure its indexes) while the host starts, so a store that cannot be
    /// opened fails the start. Default true. False: the store opens when first resolved, and the
    /// health check reports it unhealthy while it cannot be opened.
    /// </summary>
    public bool OpenOnStart { get; set; } = true;

    /// <summary>
    /// A journal write (one per merged transaction: the write and its fdatasync) taking longer than
    /// this is logged as a warning. Default 500 ms; <see cref="TimeSpan.Zero"/> turns the warning off.
    /// </summary>
    public TimeSpan SlowCommitThreshold { get; set; } = TimeSpan.FromMilliseconds(500);

    /// <summary>A read replica's destination (<see cref="VoronDocumentStoreBuilder.AsReadReplica"/>), or null for a primary.</summary>
    internal IArchiveDestination? ReplicaOf { get; set; }

    /// <summary>A read replica's options (<see cref="VoronDocumentStoreBuilder.AsReadReplica"/>).</summary>
    internal ReplicaOptions? Replica { get; set; }

    /// <summary>The store's key, from the app's services (<see cref="VoronDocumentStoreBuilder.UseEncryptionKey"/>); null = not encrypted. Never bound from configuration.</summary>
    internal Func<IServiceProvider, byte[]>? EncryptionKey { get; set; }

    /// <summary>Indexes ensured after the store opens (<see cref="VoronDocumentStoreBuilder.EnsureIndex"/>).</summary>
    internal List<IndexDefinition> Indexes { get; } = [];

    /// <summary>Changes to the engine's options before it opens (<see cref="VoronDocumentStoreBuilder.ConfigureEnvironment"/>).</summary>
    internal List<Action<StorageEnvironmentOptions>> EnvironmentConfigurations { get; } = [];

    /// <summary>Tests: makes the engine's options (a fault-injecting file system) instead of the path's.</summary>
    internal Func<DocumentStoreOptions, StorageEnvironmentOptions>? EnvironmentOptionsFactory { get; set; }

    internal void Validate(List<string> failures)
    {
        if (SlowCommitThreshold < TimeSpan.Zero)
        {
            failures.Add($"SlowCommitThreshold may not be negative; it is {SlowCommitThreshold}.");
        }
    }
}
