namespace Voron;

/// <summary>How a read replica follows its primary (<see cref="StorageEnvironment.OpenReplica"/>).</summary>
public sealed class ReplicaOptions
{
    /// <summary>
    /// The lineage to follow: the primary's store id, 16 hex digits, as <c>voron info</c> and
    /// <see cref="ArchiveShippingStatus.Lineage"/> show it. Null: the destination must hold snapshots
    /// of exactly one lineage, which is followed. A replica that exists already follows the lineage it
    /// recorded; a different one given here is refused.
    /// </summary>
    public string? Lineage { get; init; }

    /// <summary>How long the replica waits, after a pass that found nothing new, before it lists the destination again (1 s by default).</summary>
    public TimeSpan PollInterval { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// Sets the replica store's own options before it is opened (page-version memory, durability,
    /// the long-reader callback, ...). <see cref="StorageEnvironmentOptions.ArchiveDestination"/> and
    /// <see cref="StorageEnvironmentOptions.JournalArchiveDirectory"/> must stay null: a replica ships nothing.
    /// </summary>
    public Action<StorageEnvironmentOptions>? Configure { get; init; }

    /// <summary>
    /// When the replica in the directory cannot continue from its position — its next journal object
    /// is gone while later ones are there, that object is damaged or does not continue the chain, or
    /// its lineage forked and the primary ships under the new id — discard its store and restore the
    /// newest snapshot that lies past the break (of the lineage it follows, or of the lineage that
    /// forked from it), instead of opening a replica that stops at once. The swap is crash-safe: a
    /// crash leaves the old replica or the new one (RR1–RR5 in Voron.Core/Replication/ReplicaRebuild.cs).
    /// False by default: the replica opens as it is and stops with the reason (RE5, RE6).
    /// A running replica that stopped keeps stopping: dispose it and open it again with this set
    /// (<see cref="ReplicaStatus.ResnapshotWouldRebuild"/> says whether that rebuilds).
    /// </summary>
    public bool Resnapshot { get; init; }

    /// <summary>Called after each step of a rebuild's swap (RR3): a test throws here to leave the files as a crash would.</summary>
    internal Action<int>? AfterRebuildStep { get; init; }
}
