namespace Voron.Documents.AspNetCore;

/// <summary>When the Voron health check reports a working store as degraded.</summary>
public sealed class VoronHealthCheckOptions
{
    /// <summary>
    /// Degraded when more committed transactions than this wait in the journal for the flush to the
    /// data file (a long-lived reader holding the flush back, or a flush that cannot keep up): they
    /// cost memory and journal space, and recovery time after a crash. Default 100,000.
    /// </summary>
    public long MaxJournalBacklogTransactions { get; set; } = 100_000;

    /// <summary>Degraded when the store's file system has less free space than this, in bytes. Default 1 GiB; 0 turns the check off.</summary>
    public long MinFreeDiskBytes { get; set; } = 1L << 30;

    /// <summary>
    /// Degraded when more archived journal files than this wait to be shipped to the store's
    /// archive destination (StorageEnvironmentOptions.ArchiveDestination: the destination is down
    /// or slow; commits go on and the files wait on the local disk). Default 10; ignored when the
    /// store ships no archive.
    /// </summary>
    public int MaxArchivePendingFiles { get; set; } = 10;

    /// <summary>
    /// For a read replica (<see cref="VoronDocumentStoreBuilder.AsReadReplica"/>): degraded when the
    /// transaction it applied last trails the newest it has seen in the destination by more than
    /// this (<see cref="ReplicaStatus.Lag"/>, by the primary's commit times). Default 30 s; a replica
    /// that a fail-safe check stopped is unhealthy whatever its lag.
    /// </summary>
    public TimeSpan MaxReplicaLag { get; set; } = TimeSpan.FromSeconds(30);
}
