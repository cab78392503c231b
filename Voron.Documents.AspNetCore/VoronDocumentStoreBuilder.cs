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

    /// <summary>Changes how the app hosts the store (<see cref="DocumentStoreHostingOptions"/>).</summary>
    public VoronDocumentStoreBuilder ConfigureHosting(Action<DocumentStoreHostingOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        Services.Configure(Name, configure);
        return this;
    }
}
