using System.Runtime.CompilerServices;
using Voron.Documents.Changes;

namespace Voron.Documents;

public sealed partial class DocumentStore
{
    /// <summary>Changes one read transaction of a feed reads at most (CF2).</summary>
    private const int ChangeBatchSize = 512;

    private readonly CancellationTokenSource _closing = new();
    private Task? _pruneLoop;

    /// <summary>
    /// The lowest position any subscription still needs, read in the pruner's transaction (CF5);
    /// null: no limit. Set by subscriptions.
    /// </summary>
    internal Func<ReadTransaction, long>? LowestSubscriptionPosition { get; set; }

    /// <summary>
    /// The smallest <c>since</c> <see cref="Changes"/> accepts now: every change after it is still
    /// in the log. Rises as retention prunes old changes.
    /// </summary>
    public long OldestChangePosition
    {
        get
        {
            ThrowIfDisposed();
            using var read = Environment.BeginRead();
            return ChangeLog.Oldest(read, Path);
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
        ThrowIfFeedOff();
        if (collection != null)
        {
            Storage.DocumentNames.CollectionBytes(collection, nameof(collection));
        }

        using (var read = Environment.BeginRead())
        {
            ChangeLog.Start(read, since, Path); // refused here, before the enumeration starts; Follow checks again in its first read (CF8)
        }

        return Follow(since, collection, includeJson, cancellationToken);
    }

    internal void ThrowIfFeedOff()
    {
        if (!Options.ChangeFeed.Enabled)
        {
            throw new InvalidOperationException("The change feed is off for this store: set DocumentStoreOptions.ChangeFeed.Enabled = true and open it again (the feed then starts with the changes after that open).");
        }
    }

    private async IAsyncEnumerable<DocumentChange> Follow(long position, string? collection, bool includeJson, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _closing.Token);
        var batch = new List<DocumentChange>(ChangeBatchSize);
        var first = true;
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            ThrowIfDisposed();
            batch.Clear();
            long snapshot;
            long scanned;
            using (var read = Environment.BeginRead()) // CF2: disposed before the batch is yielded
            {
                if (first)
                {
                    position = ChangeLog.Start(read, position, Path); // CF8: in the snapshot of the first read
                    first = false;
                }

                var oldest = ChangeLog.Oldest(read, Path);
                if (position < oldest)
                {
                    throw new ChangeFeedPositionException(position, oldest); // CF5: pruned past a slow consumer
                }

                ChangeLog.Read(read, position, collection, includeJson, ChangeBatchSize, batch, out scanned, Path);
                snapshot = read.Id;
            }

            foreach (var change in batch)
            {
                yield return change;
            }

            if (scanned > position)
            {
                position = scanned; // CF3
                continue;
            }

            try
            {
                // CF7: caught up with this snapshot; any later commit wakes the wait.
                await Environment.WaitForCommitAsync(snapshot, linked.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested && _closing.IsCancellationRequested)
            {
                throw new ObjectDisposedException(nameof(DocumentStore), "The document store was disposed while its change feed waited for commits.");
            }
        }
    }

    /// <summary>Deletes the changes retention no longer keeps (CF5), in steps of bounded size; returns how many.</summary>
    internal async Task<long> PruneChangesAsync(CancellationToken cancellationToken)
    {
        ThrowIfDisposed();
        var cutoff = Options.TimeProvider.GetUtcNow().UtcTicks - Math.Min(Options.ChangeFeed.Retention.Ticks, DateTime.MaxValue.Ticks);
        var lowest = LowestSubscriptionPosition;
        long total = 0;
        while (true)
        {
            var pruned = await Environment.ExecuteAsync(
                transaction => ChangePruner.PruneStep(transaction, cutoff, lowest, ChangePruner.StepSize, Path), cancellationToken).ConfigureAwait(false);
            total += pruned;
            if (pruned < ChangePruner.StepSize)
            {
                return total;
            }
        }
    }

    /// <summary>Starts the background pruning loop (at open).</summary>
    private void StartChangeFeed()
    {
        if (Options.ChangeFeed.Enabled)
        {
            _pruneLoop = Task.Run(() => PruneLoopAsync(_closing.Token));
        }
    }

    /// <summary>Ends live feeds and the pruning loop, and waits for the loop (at dispose, before the environment closes).</summary>
    private void StopChangeFeed()
    {
        _closing.Cancel();
        try
        {
            _pruneLoop?.GetAwaiter().GetResult();
        }
        catch (OperationCanceledException)
        {
        }
    }

    private async Task PruneLoopAsync(CancellationToken closing)
    {
        var retention = Options.ChangeFeed.Retention;
        var interval = retention / 10 < TimeSpan.FromMinutes(1) ? retention / 10 : TimeSpan.FromMinutes(1);
        if (interval < TimeSpan.FromMilliseconds(10))
        {
            interval = TimeSpan.FromMilliseconds(10);
        }

        while (!closing.IsCancellationRequested)
        {
            await Task.Delay(interval, Options.TimeProvider, closing).ConfigureAwait(false);
            try
            {
                await PruneChangesAsync(closing).ConfigureAwait(false);
            }
#pragma warning disable CA1031 // a failed or closing store: the next round tries again, disposal ends the loop
            catch (Exception)
#pragma warning restore CA1031
            {
                // Disposal sets the store's flag before it cancels the loop, so a round that
                // started in between meets ObjectDisposedException (or anything else) as the loop
                // is being stopped: that ends it quietly, as the cancellation would.
                if (closing.IsCancellationRequested)
                {
                    return;
                }
            }
        }
    }
}
