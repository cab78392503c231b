namespace Voron.Documents;

/// <summary>
/// A change feed was asked to start after a position whose later changes are no longer all kept
/// (pruned by <see cref="ChangeFeedOptions.Retention"/>, or logged only since the feed was turned
/// on or the store upgraded). Start from <see cref="Oldest"/> (<see cref="DocumentStore.OldestChangePosition"/>)
/// and reload what you track, or keep changes longer.
/// </summary>
public sealed class ChangeFeedPositionException : InvalidOperationException
{
    /// <summary>The feed was asked for changes after <paramref name="requested"/>; the oldest accepted position is <paramref name="oldest"/>.</summary>
    public ChangeFeedPositionException(long requested, long oldest)
        : base($"The change feed no longer holds every change after position {requested}: the oldest position it can start after is {oldest} " +
               "(older changes were pruned by ChangeFeedOptions.Retention, or were written before the feed was turned on). " +
               "Start from DocumentStore.OldestChangePosition and reload the state you track, or raise DocumentStoreOptions.ChangeFeed.Retention.")
    {
        Requested = requested;
        Oldest = oldest;
    }

    /// <summary>The position asked for.</summary>
    public long Requested { get; }

    /// <summary>The smallest position accepted when it was asked.</summary>
    public long Oldest { get; }
}
