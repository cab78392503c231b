using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Options;
using Voron.Documents.AspNetCore.HealthChecks;
using Voron.Documents.AspNetCore.Hosting;

namespace Voron.Documents.AspNetCore;

/// <summary>Adds the Voron document store health check: <c>services.AddHealthChecks().AddVoron()</c>.</summary>
public static class VoronHealthChecksBuilderExtensions
{
    /// <summary>
    /// Checks a registered document store: <see cref="HealthStatus.Unhealthy"/> (or
    /// <paramref name="failureStatus"/>) when it cannot be opened or has failed (fail-stop: it
    /// refuses writes until the app restarts); <see cref="HealthStatus.Degraded"/> when the journal
    /// backlog or the free disk space passes the thresholds of <paramref name="configure"/>'s
    /// <see cref="VoronHealthCheckOptions"/>. The result's data give the path, the last committed and
    /// flushed transactions, the backlog and the free bytes.
    /// </summary>
    /// <param name="builder">The health checks builder.</param>
    /// <param name="name">The check's name; default <c>voron</c> (<c>voron-&lt;key&gt;</c> for a keyed store).</param>
    /// <param name="failureStatus">What a failed or unopenable store reports; default <see cref="HealthStatus.Unhealthy"/>.</param>
    /// <param name="tags">Tags to filter checks by (<c>MapHealthChecks</c>' predicate).</param>
    /// <param name="timeout">How long the check may take.</param>
    /// <param name="storeKey">The store's service key (<c>AddKeyedVoronDocumentStore</c>); null for the store registered without one.</param>
    /// <param name="configure">The degraded thresholds.</param>
    public static IHealthChecksBuilder AddVoron(this IHealthChecksBuilder builder, string? name = null, HealthStatus? failureStatus = null,
        IEnumerable<string>? tags = null, TimeSpan? timeout = null, string? storeKey = null, Action<VoronHealthCheckOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var storeName = storeKey ?? Options.DefaultName;
        var options = new VoronHealthCheckOptions();
        configure?.Invoke(options);
        return builder.Add(new HealthCheckRegistration(
            name ?? (storeName.Length == 0 ? "voron" : "voron-" + storeName),
            provider => new VoronHealthCheck(provider.GetRequiredKeyedService<DocumentStoreHost>(storeName), options),
            failureStatus,
            tags,
            timeout));
    }
}
