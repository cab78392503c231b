using DocumentsApi;
using OpenTelemetry.Metrics;
using Voron.Diagnostics;
using Voron.Documents;
using Voron.Documents.AspNetCore;

var builder = WebApplication.CreateBuilder(args);

// The store: settings from the "Voron:Documents" section (Path, Durability, ...). With no Path
// configured, a new temporary directory, deleted when the app stops.
string? temporary = null;
builder.Services.AddVoronDocumentStore(builder.Configuration.GetSection("Voron:Documents"), options =>
    {
        if (options.Path == null && !options.InMemory)
        {
            options.Path = temporary = Path.Combine(Path.GetTempPath(), $"voron-documents-api-{Guid.NewGuid():N}");
        }
    })
    .EnsureIndex(ProductEndpoints.ByCategoryAndPrice);

builder.Services.AddVoronProblemDetails();                  // problem details: bad input 400 / 415, 409 / 412 / 413 / 503
builder.Services.AddHealthChecks().AddVoron();               // unhealthy when the store failed
builder.Services.ConfigureHttpJsonOptions(o => o.SerializerOptions.TypeInfoResolverChain.Insert(0, AppJson.Default));
builder.Services.AddOpenTelemetry().WithMetrics(metrics => metrics
    .AddMeter(DocumentsDiagnostics.MeterName, VoronMetrics.MeterName, "Microsoft.AspNetCore.Hosting")
    .AddPrometheusExporter());

var app = builder.Build();
app.UseExceptionHandler();
app.MapProducts();
app.MapDocumentChanges();                                    // GET /changes: committed changes as server-sent events; Last-Event-ID or ?since= resumes
app.MapHealthChecks("/health");
app.MapPrometheusScrapingEndpoint();                         // GET /metrics
app.Lifetime.ApplicationStopped.Register(() =>               // after the store closed
{
    if (temporary != null && Directory.Exists(temporary))
    {
        Directory.Delete(temporary, recursive: true);
    }
});

try
{
    app.Run();
    return 0;
}
catch (DocumentStoreOpenException)
{
    return 1; // the host has logged why (a locked store: one line naming the lock file)
}
