namespace Voron.LoadTests.Capabilities;

/// <summary>
/// An engine that can rewrite its store densely between runs (Voron's offline
/// <see cref="StorageEnvironment.CompactAsync"/>): <c>churn</c>'s <c>voron-compact</c> variant
/// compacts once per round, after the round's settle.
/// </summary>
internal interface ICompactable
{
    /// <summary>
    /// Closes the store, compacts it and opens it again; no write or reader may be in flight.
    /// Returns what the compaction did (its duration is the compaction's own, without the close and
    /// the reopen).
    /// </summary>
    Task<CompactionResult> CompactAsync(CancellationToken cancellationToken = default);
}
