using Microsoft.Extensions.DependencyInjection;

namespace Voron.Documents.AspNetCore;

/// <summary>
/// Returned by <c>AddVoronDocumentStore</c> and <c>AddKeyedVoronDocumentStore</c>: further settings of
/// that one store, chained.
/// </summary>
public sealed class VoronDocumentStoreBuilder
{
    internal VoronDocumentStoreBuilder(IServiceCollection services, string name)
    {
        Services = services;
        Name = name;
    }

    /// <summary>The service collection the store is registered in.</summary>
    public IServiceCollection Services { get; }

    /// <summary>The store's name: its service key, or "" for the store registered without one. Its options are the named options of this name.</summary>
    public string Name { get; }

    /// <summary>
    /// Ensures <paramref name="definition"/> once the store opens (<see cref="DocumentStore.EnsureIndexAsync"/>):
    /// created and built if missing, so queries can rely on it from the first request. A build over
    /// many documents delays the start by its duration.
    /// </summary>
    public VoronDocumentStoreBuilder EnsureIndex(IndexDefinition definition)
    {
        ArgumentNullException.ThrowIfNull(definition);
        Services.Configure<DocumentStoreHostingOptions>(Name, o => o.Indexes.Add(definition));
        return this;
    }

    /// <summary>Changes the engine's options (journal file size, flush threshold, batch limits, ...) before the store opens.</summary>
    public VoronDocumentStoreBuilder ConfigureEnvironment(Action<StorageEnvironmentOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        Services.Configure<DocumentStoreHostingOptions>(Name, o => o.EnvironmentConfigurations.Add(configure));
        return this;
    }

    /// <summary>
    /// Hosts a read replica instead of a primary: the store at <see cref="DocumentStoreOptions.Path"/>
    /// follows the primary that ships its journal to <paramref name="destination"/>
    /// (<see cref="DocumentStore.OpenReplica"/>: the first open restores the newest snapshot there).
    /// Every write refuses, saying to write to the primary. The indexes of <see cref="EnsureIndex"/>
    /// are looked up, not built: one the replica does not hold ready yet is logged, and queries that
    /// need it are refused until the replica applied the primary's build (H7). The health check
    /// reports the replica's state and lag (<see cref="VoronHealthCheckOptions.MaxReplicaLag"/>).
    /// </summary>
    /// <param name="destination">Where the primary ships (its <see cref="StorageEnvironmentOptions.ArchiveDestination"/>).</param>
    /// <param name="replica">The lineage to follow and how often to poll; null: the defaults.</param>
    public VoronDocumentStoreBuilder AsReadReplica(IArchiveDestination destination, ReplicaOptions? replica = null)
    {
        ArgumentNullException.ThrowIfNull(destination);
        Services.Configure<DocumentStoreHostingOptions>(Name, o =>
        {
            o.ReplicaOf = destination;
            o.Replica = replica;
        });
        return this;
    }

    /// <summary>
    /// Opens the store encrypted with the 256-bit key (exactly 32 bytes) that <paramref name="key"/>
    /// returns: called once per open, with the app's services, so it can read a key vault or the OS
    /// key store (<see cref="StorageEnvironmentOptions.EncryptionKeyProvider"/>). A new store is created
    /// encrypted; an existing one must have been created with this key, else the start fails with
    /// <see cref="EncryptionKeyException"/> and nothing changes. The key is never logged, and never
    /// read from configuration: a key-like setting (such as <c>Voron:EncryptionKey</c>) fails the start.
    /// Replicas of an encrypted store are not supported yet (<see cref="AsReadReplica"/> with a key fails the open).
    /// </summary>
    public VoronDocumentStoreBuilder UseEncryptionKey(Func<IServiceProvider, byte[]> key)
    {
        ArgumentNullException.ThrowIfNull(key);
        Services.Configure<DocumentStoreHostingOptions>(Name, o => o.EncryptionKey = key);
        return this;
    }

    /// <summary>Changes how the app hosts the store (<see cref="DocumentStoreHostingOptions"/>).</summary>
    public VoronDocumentStoreBuilder ConfigureHosting(Action<DocumentStoreHostingOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        Services.Configure(Name, configure);
        return this;
    }
}
