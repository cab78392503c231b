namespace Voron.Documents;

/// <summary>The change feed's settings (<see cref="DocumentStoreOptions.ChangeFeed"/>).</summary>
public sealed class ChangeFeedOptions
{
    /// <summary>
    /// Whether writes append to the change log (default true). False: nothing is logged, and
    /// <see cref="DocumentStore.Changes"/> throws <see cref="InvalidOperationException"/>. Turning
    /// it on again starts the feed at the store's version then (earlier changes are not in it).
    /// </summary>
    public bool Enabled { get; set; } = true;

    /// <summary>
    /// How long changes stay readable (default 7 days): older ones are pruned in the background,
    /// but never past a subscription's position. A feed asked for a position older than what is
    /// kept throws <see cref="ChangeFeedPositionException"/>.
    /// </summary>
    public TimeSpan Retention { get; set; } = TimeSpan.FromDays(7);

    internal ChangeFeedOptions Clone() => (ChangeFeedOptions)MemberwiseClone();
}
