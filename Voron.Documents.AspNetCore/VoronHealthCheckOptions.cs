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
}
