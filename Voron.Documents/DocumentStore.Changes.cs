using Voron.Documents.Changes;

namespace Voron.Documents;

public sealed partial class DocumentStore
{
    /// <summary>The live feeds and the pruning of the change log (Changes/ChangeFeed.cs).</summary>
    internal ChangeFeed Feed { get; }

    /// <summary>
    /// The smallest <c>since</c> <see cref="Changes"/> accepts now: every change after it is still
    /// in the log. Rises as retention prunes old changes.
    /// </summary>
    public long OldestChangePosition
    {
        get
        {
            ThrowIfDisposed();
            return Feed.OldestPosition();
        }
    }

    /// <summary>
    /// The store's committed changes after position <paramref name="since"/>, in version order:
    /// first the history, then live commits as they become durable, with no gap and no duplicate
    /// between the two. Each change's <see cref="DocumentChange.Version"/> is its position; resume
    /// after the last one handled. The feed reads in batches, each in its own short read transaction,
    /// so a slow consumer holds neither writers nor snapshots; it waits for commits without polling.
    /// Runs until <paramref name="cancellationToken"/> is cancelled (<see cref="OperationCanceledException"/>)
    /// or the store is disposed (<see cref="ObjectDisposedException"/>).
    /// </summary>
    /// <param name="since">The position to start after: 0 for everything the log holds now (from <see cref="OldestChangePosition"/>, so changes already pruned are skipped: that is retention), else the version of the last change handled.</param>
    /// <param name="collection">Only this collection's changes (positions still advance past others).</param>
    /// <param name="includeJson">Fill <see cref="DocumentChange.Json"/> for stored versions the documents still hold.</param>
    /// <param name="cancellationToken">Ends the enumeration.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="since"/> is negative.</exception>
    /// <exception cref="ChangeFeedPositionException"><paramref name="since"/> is not 0 and below <see cref="OldestChangePosition"/> (also while enumerating, if retention prunes past a slow consumer), or above the store's last version (a store restored from a backup, or one that lost commits in a crash with lazy durability).</exception>
    /// <exception cref="EnvironmentFailedException">The store failed (a write error); the enumeration ends with it.</exception>
    /// <exception cref="InvalidOperationException">The change feed is off (<see cref="ChangeFeedOptions.Enabled"/>).</exception>
    /// <exception cref="ObjectDisposedException">The store is disposed.</exception>
    public IAsyncEnumerable<DocumentChange> Changes(long since = 0, string? collection = null, bool includeJson = false, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(since);
        ThrowIfDisposed();
        if (IsReplica && !Options.ChangeFeed.Enabled)
        {
            throw new InvalidOperationException($"The change feed is off in the primary's store that the read replica at '{Path}' follows, so nothing is " +
                "logged for it: turn it on there (DocumentStoreOptions.ChangeFeed.Enabled), and open this store again once the replica has applied that (I8).");
        }

        return Feed.Open(since, collection, includeJson, cancellationToken);
    }
}
