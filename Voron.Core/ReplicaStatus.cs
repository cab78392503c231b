namespace Voron;

/// <summary>
/// Where a read replica is (<see cref="StorageEnvironment.Replica"/>): the primary's transaction it
/// applied last, the newest one it has seen in the destination, and whether it still follows.
/// </summary>
/// <param name="Destination">The destination's description.</param>
/// <param name="Lineage">The followed lineage (the primary's store id, 16 hex digits).</param>
/// <param name="State">Following, or Stopped by a fail-safe check (see <paramref name="Error"/>).</param>
/// <param name="AppliedTransaction">The last transaction applied and visible to readers (the primary's id).</param>
/// <param name="AppliedCommitTime">When it committed on the primary; null when unknown.</param>
/// <param name="NewestSeenTransaction">The newest transaction the replica has found in the destination (at least <paramref name="AppliedTransaction"/>).</param>
/// <param name="NewestSeenCommitTime">When that one committed on the primary; null when unknown.</param>
/// <param name="Lag">How far the applied transaction's commit trails the newest seen one's (zero when caught up). The
/// destination itself trails the primary by what is not shipped yet (<see cref="ArchiveShippingStatus"/> on the primary).</param>
/// <param name="ConsecutiveFailures">Passes in a row that failed to reach the destination (0 = healthy); they are retried.</param>
/// <param name="LastError">What the last failed pass reported, or null after a success.</param>
/// <param name="Error">What stopped the replica (a <see cref="ReplicaStoppedException"/>), or null while it follows.</param>
public sealed record ReplicaStatus(string Destination, string Lineage, ReplicaState State, long AppliedTransaction, DateTimeOffset? AppliedCommitTime,
    long NewestSeenTransaction, DateTimeOffset? NewestSeenCommitTime, TimeSpan Lag, int ConsecutiveFailures, string? LastError, Exception? Error)
{
    /// <summary>
    /// True when the replica stopped at a break in the shipped log that opening it again with
    /// <see cref="ReplicaOptions.Resnapshot"/> finds and repairs: a gap, a damaged object or one off
    /// the chain at its position, or a fork (RE5, RE6). That open discards the store and restores a
    /// snapshot past the break, or, when the destination holds none, throws saying which is needed.
    /// False while it follows, and for a stop no snapshot cures (the store failed, it was disposed).
    /// </summary>
    public bool ResnapshotWouldRebuild { get; init; }

    /// <summary>The break for which this open discarded the replica's store and restored a snapshot (<see cref="ReplicaOptions.Resnapshot"/>), or null.</summary>
    public string? RebuiltBecause { get; init; }
}

/// <summary>Whether a read replica applies what its primary ships.</summary>
public enum ReplicaState
{
    /// <summary>It applies each shipped transaction as it appears.</summary>
    Following = 0,

    /// <summary>A fail-safe check stopped it (<see cref="ReplicaStatus.Error"/>); it serves what it applied, and applies nothing more until reopened.</summary>
    Stopped = 1,
}
