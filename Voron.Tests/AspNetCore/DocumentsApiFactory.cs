using DocumentsApi;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Mvc.Testing;
using Microsoft.AspNetCore.TestHost;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Voron.Tests.AspNetCore;

/// <summary>
/// samples/DocumentsApi in a test server, on a store in <paramref name="storePath"/> (or one the
/// test makes with <see cref="DocumentStoreHostingOptions"/>' environment factory), with the
/// Voron.Documents log captured.
/// </summary>
internal sealed class DocumentsApiFactory(string? storePath, Action<IServiceCollection>? services = null, params (string Key, string Value)[] settings)
    : WebApplicationFactory<Product>
{
    public CapturedLogs Logs { get; } = new();

    /// <summary>The host environment: Production (no developer exception page) unless a test says otherwise.</summary>
    public string Environment { get; init; } = "Production";

    protected override void ConfigureWebHost(IWebHostBuilder builder)
    {
        builder.UseEnvironment(Environment); // Production: no developer exception page, the app's own handlers answer
        if (storePath != null)
        {
            builder.UseSetting("Voron:Documents:Path", storePath);
        }

        foreach (var (key, value) in settings)
        {
            builder.UseSetting(key, value);
        }

        builder.ConfigureLogging(logging => logging.AddProvider(Logs));
        if (services != null)
        {
            builder.ConfigureTestServices(services);
        }
    }
}
