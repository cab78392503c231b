namespace Voron;

/// <summary>
/// How far a store's journal archive is shipped to its <see cref="StorageEnvironmentOptions.ArchiveDestination"/>
/// (<see cref="StorageEnvironment.ArchiveShipping"/>): the lag grows while the destination is down
/// and shrinks once it is back. Commits never wait for it.
/// </summary>
/// <param name="Destination">The destination's description.</param>
/// <param name="Lineage">The store id the objects are stored under (16 hex digits).</param>
/// <param name="LastShippedFile">The last journal file number stored in the destination (0 = none yet).</param>
/// <param name="LastShippedTransaction">The last transaction of that file (0 = unknown or none).</param>
/// <param name="PendingFiles">Archived journal files not yet shipped: the lag, in files.</param>
/// <param name="PendingBytes">Their bytes.</param>
/// <param name="ConsecutiveFailures">Failed passes since the last one that succeeded (0 = healthy).</param>
/// <param name="LastError">What the last failed pass reported (time, type, message), or null after a success.</param>
/// <param name="LastShippedAt">When this process last stored a file, or null.</param>
public sealed record ArchiveShippingStatus(string Destination, string Lineage, long LastShippedFile, long LastShippedTransaction, int PendingFiles,
    long PendingBytes, int ConsecutiveFailures, string? LastError, DateTimeOffset? LastShippedAt)
{
    /// <summary>The writer's lease on the lineage (LS1..LS8 in Voron.Core/Archive/ArchiveLease.cs).</summary>
    public ArchiveLeaseState Lease { get; init; }

    /// <summary>Who holds the lease (this store, or the other one when <see cref="Lease"/> is
    /// <see cref="ArchiveLeaseState.HeldByAnother"/>): holder id, machine, process and expiry; null when unknown or not enforced.</summary>
    public string? LeaseHolder { get; init; }
}
