using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using Voron.Documents.AspNetCore.Hosting;
using Voron.Documents.AspNetCore.Http;

namespace Voron.Documents.AspNetCore;

/// <summary>
/// Registers Voron document stores: the <see cref="DocumentStore"/> as a singleton (opened while the
/// host starts, closed when it stops), an <see cref="IAsyncDocumentSession"/> per scope (per HTTP
/// request), options bound and validated at start-up.
/// </summary>
public static class VoronServiceCollectionExtensions
{
    /// <summary>The configuration section <see cref="AddVoronDocumentStore(IServiceCollection, string, Action{DocumentStoreOptions}?)"/> binds by default.</summary>
    public const string DefaultConfigSectionPath = "Voron:Documents";

    /// <summary>Registers the app's document store, configured in code.</summary>
    public static VoronDocumentStoreBuilder AddVoronDocumentStore(this IServiceCollection services, Action<DocumentStoreOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        return Register(services, Options.DefaultName, serviceKey: null, options => options.Configure(configure));
    }

    /// <summary>
    /// Registers the app's document store, bound from the configuration section at
    /// <paramref name="configSectionPath"/> (keys: <c>Path</c>, <c>InMemory</c>, <c>Durability</c>, ... as in
    /// <see cref="DocumentStoreOptions"/>, and <see cref="DocumentStoreHostingOptions"/>'s), then
    /// <paramref name="configure"/> (a fallback for a setting the configuration lacks).
    /// </summary>
    public static VoronDocumentStoreBuilder AddVoronDocumentStore(this IServiceCollection services, string configSectionPath = DefaultConfigSectionPath, Action<DocumentStoreOptions>? configure = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(configSectionPath);
        return Register(services, Options.DefaultName, serviceKey: null, options => BindPath(options, configSectionPath, configure), configSectionPath);
    }

    /// <summary>Registers the app's document store, bound from <paramref name="section"/>, then <paramref name="configure"/>.</summary>
    public static VoronDocumentStoreBuilder AddVoronDocumentStore(this IServiceCollection services, IConfiguration section, Action<DocumentStoreOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(section);
        return Register(services, Options.DefaultName, serviceKey: null, options => BindSection(options, section, configure), section: section);
    }

    /// <summary>
    /// Registers one more document store under <paramref name="serviceKey"/>: inject it with
    /// <c>[FromKeyedServices("audit")] DocumentStore</c> or <c>[FromKeyedServices("audit")] IAsyncDocumentSession</c>.
    /// Its options are the named options <paramref name="serviceKey"/>.
    /// </summary>
    public static VoronDocumentStoreBuilder AddKeyedVoronDocumentStore(this IServiceCollection services, string serviceKey, Action<DocumentStoreOptions> configure)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(serviceKey);
        ArgumentNullException.ThrowIfNull(configure);
        return Register(services, serviceKey, serviceKey, options => options.Configure(configure));
    }

    /// <summary>As <see cref="AddKeyedVoronDocumentStore(IServiceCollection, string, Action{DocumentStoreOptions})"/>, bound from <paramref name="section"/>, then <paramref name="configure"/>.</summary>
    public static VoronDocumentStoreBuilder AddKeyedVoronDocumentStore(this IServiceCollection services, string serviceKey, IConfiguration section, Action<DocumentStoreOptions>? configure = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(serviceKey);
        ArgumentNullException.ThrowIfNull(section);
        return Register(services, serviceKey, serviceKey, options => BindSection(options, section, configure), section: section);
    }

    /// <summary>
    /// Maps the document store's exceptions to RFC 9457 problem details (with
    /// <c>app.UseExceptionHandler()</c>): <see cref="ConcurrencyException"/> to 409 Conflict, or 412
    /// Precondition Failed when the request sent <c>If-Match</c> or <c>If-None-Match</c>;
    /// <see cref="UniqueConstraintException"/> to 409; <see cref="InvalidJsonException"/> to 400;
    /// <see cref="DocumentLimitException"/> to 413 (a document too large) or 400 (an id, an index key); <see cref="EnvironmentFailedException"/> to 503.
    /// A request that cannot be read gets a 4xx problem too, in every environment, never an empty
    /// 400 or a 500: minimal APIs' binding failures (bad JSON, a body of the wrong kind or with a
    /// member of the wrong type, a missing or unparsable parameter, an empty body) are made to throw
    /// (<c>RouteHandlerOptions.ThrowOnBadRequest</c>) and answered with their status (400, or 415 for
    /// the wrong content type) and a detail naming the parameter and the JSON reader's message (and
    /// path); any other 4xx an endpoint or the framework leaves empty (a 415, <c>TypedResults.NotFound()</c>)
    /// gets a problem-details body;
    /// a number out of range (<c>1e400</c>, which would read as infinity) is refused while binding;
    /// <see cref="IfMatchVersion"/> refuses a precondition it cannot honour with a 400 naming the header.
    /// Registers <c>AddProblemDetails()</c> too.
    /// </summary>
    public static IServiceCollection AddVoronProblemDetails(this IServiceCollection services)
    {
        ArgumentNullException.ThrowIfNull(services);
        services.AddProblemDetails();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<Microsoft.AspNetCore.Diagnostics.IExceptionHandler, DocumentExceptionHandler>());
        services.TryAddEnumerable(ServiceDescriptor.Singleton<Microsoft.AspNetCore.Diagnostics.IExceptionHandler, BadRequestHandler>());
        services.TryAddEnumerable(ServiceDescriptor.Transient<Microsoft.AspNetCore.Hosting.IStartupFilter, EmptyErrorStartupFilter>()); // BR4
        services.Configure<Microsoft.AspNetCore.Routing.RouteHandlerOptions>(o => o.ThrowOnBadRequest = true); // BR1
        services.Configure<Microsoft.AspNetCore.Http.Json.JsonOptions>(o =>                                    // BR3
        {
            o.SerializerOptions.Converters.Add(new FiniteNumberConverter());
            o.SerializerOptions.Converters.Add(new FiniteSingleConverter());
        });
        return services;
    }

    private static void BindPath(OptionsBuilder<DocumentStoreOptions> options, string path, Action<DocumentStoreOptions>? configure)
    {
        options.Configure<IConfiguration>((o, configuration) => DocumentStoreOptionsBinder.Bind(configuration.GetSection(path), o));
        if (configure != null)
        {
            options.Configure(configure);
        }
    }

    private static void BindSection(OptionsBuilder<DocumentStoreOptions> options, IConfiguration section, Action<DocumentStoreOptions>? configure)
    {
        options.Configure(o => DocumentStoreOptionsBinder.Bind(section, o));
        if (configure != null)
        {
            options.Configure(configure);
        }
    }

    private static VoronDocumentStoreBuilder Register(IServiceCollection services, string name, string? serviceKey,
        Action<OptionsBuilder<DocumentStoreOptions>> bind, string? configSectionPath = null, IConfiguration? section = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        if (services.Any(d => d.ServiceType == typeof(DocumentStoreRegistration) && d.ImplementationInstance is DocumentStoreRegistration r && r.Name == name))
        {
            throw new InvalidOperationException(name.Length == 0
                ? "A document store is already registered without a key; register more stores with AddKeyedVoronDocumentStore(key, ...)."
                : $"A document store is already registered with the key '{name}'.");
        }

        bind(services.AddOptions<DocumentStoreOptions>(name));
        services.AddOptions<DocumentStoreOptions>(name).ValidateOnStart();
        var hosting = services.AddOptions<DocumentStoreHostingOptions>(name);
        if (configSectionPath != null)
        {
            hosting.Configure<IConfiguration>((o, configuration) => DocumentStoreOptionsBinder.Bind(configuration.GetSection(configSectionPath), o));
        }
        else if (section != null)
        {
            hosting.Configure(o => DocumentStoreOptionsBinder.Bind(section, o));
        }

        hosting.ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<DocumentStoreOptions>, DocumentStoreOptionsValidator>());
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<DocumentStoreHostingOptions>, DocumentStoreOptionsValidator>());
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IHostedService, DocumentStoresHostedService>());
        services.AddMetrics();
        services.AddSingleton(new DocumentStoreRegistration(name));
        services.AddKeyedSingleton(name, static (provider, key) => DocumentStoreHost.Create(provider, (string)key!));

        if (serviceKey == null)
        {
            services.AddSingleton(static provider => provider.GetRequiredKeyedService<DocumentStoreHost>(Options.DefaultName).GetStore());
            services.AddScoped(static provider => provider.GetRequiredService<DocumentStore>().OpenSession());
        }
        else
        {
            services.AddKeyedSingleton(serviceKey, static (provider, key) => provider.GetRequiredKeyedService<DocumentStoreHost>(key).GetStore());
            services.AddKeyedScoped(serviceKey, static (provider, key) => provider.GetRequiredKeyedService<DocumentStore>(key).OpenSession());
        }

        return new VoronDocumentStoreBuilder(services, name);
    }
}
