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
}
