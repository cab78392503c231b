using System.Net;
using DocumentsApi;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Voron.Documents.AspNetCore;

namespace Voron.Diagnostics.Experiments.Http;

/// <summary>
/// One backend of the http experiment, listening on 127.0.0.1 (a free port): the same Kestrel
/// host for both, logging off, in this process. Voron: samples/DocumentsApi's store registration
/// and its <see cref="ProductEndpoints.MapProducts"/>, as the sample maps them (without the
/// sample's OpenTelemetry exporter and health endpoint, which the load does not touch). SQLite:
/// <see cref="SqliteProductEndpoints"/>.
/// </summary>
internal sealed class HttpServer : IAsyncDisposable
{
    private readonly WebApplication _app;
    private readonly IDisposable? _owned;

    private HttpServer(string backend, WebApplication app, IDisposable? owned)
    {
        Backend = backend;
        _app = app;
        _owned = owned;
        Address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
    }

    public string Backend { get; }

    /// <summary>The base address, <c>http://127.0.0.1:&lt;port&gt;</c>.</summary>
    public string Address { get; }

    public static async Task<HttpServer> StartVoronAsync(string directory)
    {
        var builder = NewBuilder();
        builder.Services.AddVoronDocumentStore(options => options.Path = directory).EnsureIndex(ProductEndpoints.ByCategoryAndPrice);
        builder.Services.AddVoronProblemDetails();
        var app = builder.Build();
        app.UseExceptionHandler();
        app.MapProducts();
        await app.StartAsync().ConfigureAwait(false);
        return new HttpServer(HttpExperiment.Voron, app, owned: null);
    }

    public static async Task<HttpServer> StartSqliteAsync(string directory)
    {
        var store = new SqliteProducts(directory);
        var app = NewBuilder().Build();
        app.MapSqliteProducts(store);
        await app.StartAsync().ConfigureAwait(false);
        return new HttpServer(HttpExperiment.Sqlite, app, store);
    }

    private static WebApplicationBuilder NewBuilder()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.Listen(IPAddress.Loopback, 0));
        builder.Services.ConfigureHttpJsonOptions(o => o.SerializerOptions.TypeInfoResolverChain.Insert(0, AppJson.Default));
        return builder;
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync().ConfigureAwait(false);
        await _app.DisposeAsync().ConfigureAwait(false);
        _owned?.Dispose();
    }
}
