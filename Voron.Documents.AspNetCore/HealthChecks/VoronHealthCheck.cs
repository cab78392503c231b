using Microsoft.Extensions.Diagnostics.HealthChecks;
using Voron.Documents.AspNetCore.Hosting;

namespace Voron.Documents.AspNetCore.HealthChecks;

/// <summary>
/// One store's health, worst first: closed or cannot be opened, failed (fail-stop), another
/// store holding the archive's writer lease, a read replica stopped by a fail-safe check, then the
/// degraded thresholds (journal backlog, archive lag, a replica's lag or unreachable destination,
/// free disk space).
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

        if (environment.Replica is { } replica && CheckReplica(replica, data, problems) is { } stopped)
        {
            return new HealthCheckResult(failureStatus, stopped, replica.Error, data);
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
            ? HealthCheckResult.Healthy(environment.Replica == null ? "The document store is open and accepts writes." :
                "The document store is a read replica, open and following its primary.", data)
            : HealthCheckResult.Degraded(string.Join("; ", problems) + ".", data: data);
    }

    /// <summary>
    /// A read replica's state in <paramref name="data"/>; its lag over the threshold and a destination it
    /// cannot reach added to <paramref name="problems"/> (degraded: it serves what it applied and catches up
    /// by itself); returns why it is unhealthy when a fail-safe check stopped it (it applies nothing more
    /// until the app restarts it).
    /// </summary>
    private string? CheckReplica(ReplicaStatus replica, Dictionary<string, object> data, List<string> problems)
    {
        data["replicaState"] = replica.State.ToString();
        data["replicaLineage"] = replica.Lineage;
        data["replicaAppliedTransaction"] = replica.AppliedTransaction;
        data["replicaNewestSeenTransaction"] = replica.NewestSeenTransaction;
        data["replicaLagSeconds"] = replica.Lag.TotalSeconds;
        data["replicaConsecutiveFailures"] = replica.ConsecutiveFailures;
        if (replica.State == ReplicaState.Stopped)
        {
            return $"The read replica stopped following its primary at transaction {replica.AppliedTransaction} ({replica.Destination}): " +
                $"{replica.Error?.Message ?? "no reason recorded"} It serves what it applied; restart the app to try again" +
                (replica.ResnapshotWouldRebuild ? ", with ReplicaOptions.Resnapshot set to rebuild it from a newer snapshot." : ".");
        }

        if (replica.Lag > options.MaxReplicaLag)
        {
            problems.Add($"the read replica trails its primary by {replica.Lag.TotalSeconds:N1} s (threshold {options.MaxReplicaLag.TotalSeconds:N1} s): " +
                $"transaction {replica.AppliedTransaction:N0} applied, {replica.NewestSeenTransaction:N0} seen");
        }

        if (replica.ConsecutiveFailures > 0)
        {
            problems.Add($"the read replica failed to reach {replica.Destination} {replica.ConsecutiveFailures:N0} time(s) in a row and retries; " +
                $"last error: {replica.LastError}");
        }

        return null;
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
