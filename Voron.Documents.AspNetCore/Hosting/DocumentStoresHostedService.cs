using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Voron.Documents.AspNetCore.Hosting;

/// <summary>
/// Opens every registered store while the host starts (H1: a failure fails the start) and closes
/// them when it stops (H2: after the web server stopped taking requests).
/// </summary>
internal sealed class DocumentStoresHostedService(IServiceProvider provider, IEnumerable<DocumentStoreRegistration> registrations) : IHostedService
{
    private readonly DocumentStoreHost[] _hosts = [.. registrations.Select(r => provider.GetRequiredKeyedService<DocumentStoreHost>(r.Name))];

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        foreach (var host in _hosts.Where(h => h.Hosting.OpenOnStart))
        {
            await host.OpenAsync(logFailure: false, cancellationToken).ConfigureAwait(false); // H6: the host logs a start failure
        }
    }

    public Task StopAsync(CancellationToken cancellationToken)
    {
        // The environment's dispose waits for queued saves and the final flush, synchronously:
        // run it off the caller's thread. The host's shutdown timeout does not cut it short, so
        // no acknowledged save is left half-way and the lock file is always released (H2).
        return Task.Run(() =>
        {
            foreach (var host in _hosts)
            {
                host.Close();
            }
        }, CancellationToken.None);
    }
}
