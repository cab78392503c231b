namespace Voron.Documents;

/// <summary>
/// A change feed was asked to start after a position whose later changes are no longer all kept
/// (pruned by <see cref="ChangeFeedOptions.Retention"/>, or logged only since the feed was turned
/// on or the store upgraded), or after a position above the store's last version (the store was
/// restored from a backup, or lost its last commits in a crash with lazy durability, and will hand
/// those versions out again: <see cref="Requested"/> is then above <see cref="Oldest"/>). Start
/// from <see cref="Oldest"/> (<see cref="DocumentStore.OldestChangePosition"/>) or from the
/// version of data you reload, or keep changes longer.
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

    private ChangeFeedPositionException(long requested, long oldest, string message)
        : base(message)
    {
        Requested = requested;
        Oldest = oldest;
    }

    /// <summary>The position asked for.</summary>
    public long Requested { get; }

    /// <summary>The smallest position accepted when it was asked.</summary>
    public long Oldest { get; }

    /// <summary>A position above the store's last version <paramref name="last"/> (CF8).</summary>
    internal static ChangeFeedPositionException Ahead(long requested, long oldest, long last) =>
        new(requested, oldest,
            $"The change feed position {requested} is ahead of the store, whose last version is {last}: the store was restored from a backup, " +
            "or lost its last commits in a crash with DurabilityMode.Lazy, and will give those versions to new changes. " +
            "Start again from a position you know, e.g. reload the data and take the store's current version.");
}
