using Microsoft.Extensions.Diagnostics.HealthChecks;
using Voron.Documents.AspNetCore.Hosting;

namespace Voron.Documents.AspNetCore.HealthChecks;

/// <summary>
/// One store's health, worst first: closed or cannot be opened, failed (fail-stop), another
/// store holding the archive's writer lease, then the degraded thresholds (journal backlog,
/// archive lag, free disk space).
/// </summary>
internal sealed class VoronHealthCheck(DocumentStoreHost host, VoronHealthCheckOptions options) : IHealthCheck
{
    public async Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        var failureStatus = context.Registration.FailureStatus;
        var data = new Dictionary<string, object> { ["path"] = host.Path };
        if (host.IsClosed)
        {
            return new HealthCheckResult(failureStatus, "The document store is closed (the app is stopping).", data: data);
        }

        if (host.Environment == null)
        {
            try
            {
                await host.OpenAsync(logFailure: true, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (e is not OperationCanceledException)
            {
                return new HealthCheckResult(failureStatus, e.Message, e, data);
            }
        }

        var failure = host.ProbeFailure();
        var environment = host.Environment!;
        var committed = environment.LastCommittedTransactionId;
        var flushed = environment.LastFlushedTransactionId;
        var backlog = Math.Max(0, committed - flushed);
        data["lastCommittedTransaction"] = committed;
        data["lastFlushedTransaction"] = flushed;
        data["journalBacklogTransactions"] = backlog;
        if (failure != null)
        {
            return new HealthCheckResult(failureStatus,
                $"The document store failed and refuses writes until the app restarts: {failure.InnerException?.Message ?? failure.Message}", failure, data);
        }

        var problems = new List<string>();
        if (backlog > options.MaxJournalBacklogTransactions)
        {
            problems.Add($"{backlog:N0} committed transactions wait for the flush to the data file (threshold {options.MaxJournalBacklogTransactions:N0})");
        }

        if (environment.ArchiveShipping is { } shipping)
        {
            data["archivePendingFiles"] = shipping.PendingFiles;
            data["archivePendingBytes"] = shipping.PendingBytes;
            data["archiveLastShippedTransaction"] = shipping.LastShippedTransaction;
            if (shipping.PendingFiles > options.MaxArchivePendingFiles)
            {
                problems.Add($"{shipping.PendingFiles:N0} archived journal files ({shipping.PendingBytes:N0} bytes) wait to be shipped to {shipping.Destination} " +
                    $"(threshold {options.MaxArchivePendingFiles:N0}){(shipping.LastError is { } error ? "; last error: " + error : "")}");
            }

            data["archiveLease"] = shipping.Lease.ToString();
            if (shipping.Lease == ArchiveLeaseState.HeldByAnother)
            {
                // LS2: nothing this store commits reaches its archive until the other store stops.
                return new HealthCheckResult(failureStatus,
                    $"Another store holds the writer's lease on this store's archive at {shipping.Destination} ({shipping.LeaseHolder}): this store does " +
                    "not ship, and its commits are not archived beyond this machine. Stop the other copy of the store, or give this one its own destination.",
                    data: data);
            }
        }

        if (!host.InMemory && options.MinFreeDiskBytes > 0 && FreeBytes(environment.Path) is { } free)
        {
            data["freeDiskBytes"] = free;
            if (free < options.MinFreeDiskBytes)
            {
                problems.Add($"{free:N0} bytes free on the store's file system (threshold {options.MinFreeDiskBytes:N0})");
            }
        }

        return problems.Count == 0
            ? HealthCheckResult.Healthy("The document store is open and accepts writes.", data)
            : HealthCheckResult.Degraded(string.Join("; ", problems) + ".", data: data);
    }

    private static long? FreeBytes(string path)
    {
        try
        {
            return Directory.Exists(path) ? new DriveInfo(path).AvailableFreeSpace : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return null;
        }
    }
}
