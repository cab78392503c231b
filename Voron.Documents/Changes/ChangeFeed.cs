using System.Runtime.CompilerServices;

namespace Voron.Documents.Changes;

/// <summary>
/// A store's change feed at run time: the live feeds (<see cref="DocumentStore.Changes"/>) that
/// read the log in batches and wait for commits (CF2, CF3, CF7, CF8), and the background loop that
/// prunes what retention no longer keeps (CF5). The log's format and rules are in
/// <c>Changes/ChangeLog.cs</c>. Gets what it needs when the store is built: the environment, the
/// options, and the store's disposed check.
/// </summary>
#pragma warning disable CA1001 // _closing is cancelled by Stop, never disposed: live feeds still link to its token as they end
internal sealed class ChangeFeed(StorageEnvironment environment, DocumentStoreOptions options, Action throwIfDisposed)
#pragma warning restore CA1001
{
    /// <summary>Changes one read transaction of a feed reads at most (CF2).</summary>
    private const int BatchSize = 512;

    private readonly CancellationTokenSource _closing = new();
    private Task? _pruneLoop;

    private string Path => environment.Path;

    /// <summary>
    /// The lowest position any subscription still needs, read in the pruner's transaction (CF5);
    /// null: no limit. Set by subscriptions.
    /// </summary>
    internal Func<ReadTransaction, long>? LowestSubscriptionPosition { get; set; }

    /// <summary><see cref="DocumentStore.OldestChangePosition"/>, in a read transaction of its own.</summary>
    public long OldestPosition()
    {
        using var read = environment.BeginRead();
        return ChangeLog.Oldest(read, Path);
    }

    /// <summary>
    /// <see cref="DocumentStore.Changes"/> once its arguments are checked: refuses a feed that is
    /// off, a bad collection name or a position the log cannot serve, before the enumeration starts.
    /// </summary>
    public IAsyncEnumerable<DocumentChange> Open(long since, string? collection, bool includeJson, CancellationToken cancellationToken)
    {
        ThrowIfOff();
        if (collection != null)
        {
            Storage.DocumentNames.CollectionBytes(collection, nameof(collection));
        }

        using (var read = environment.BeginRead())
        {
            ChangeLog.Start(read, since, Path); // refused here, before the enumeration starts; Follow checks again in its first read (CF8)
        }

        return Follow(since, collection, includeJson, cancellationToken);
    }

    private void ThrowIfOff()
    {
        if (!options.ChangeFeed.Enabled)
        {
            throw new InvalidOperationException("The change feed is off for this store: set DocumentStoreOptions.ChangeFeed.Enabled = true and open it again (the feed then starts with the changes after that open).");
        }
    }

    private async IAsyncEnumerable<DocumentChange> Follow(long position, string? collection, bool includeJson, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _closing.Token);
        var batch = new List<DocumentChange>(BatchSize);
        var first = true;
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            throwIfDisposed();
            batch.Clear();
            long snapshot;
            long scanned;
            using (var read = environment.BeginRead()) // CF2: disposed before the batch is yielded
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

                ChangeLog.Read(read, position, collection, includeJson, BatchSize, batch, out scanned, Path);
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
                await environment.WaitForCommitAsync(snapshot, linked.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested && _closing.IsCancellationRequested)
            {
                throw new ObjectDisposedException(nameof(DocumentStore), "The document store was disposed while its change feed waited for commits.");
            }
        }
    }

    /// <summary>Deletes the changes retention no longer keeps (CF5), in steps of bounded size; returns how many.</summary>
    internal async Task<long> PruneAsync(CancellationToken cancellationToken)
    {
        throwIfDisposed();
        var cutoff = options.TimeProvider.GetUtcNow().UtcTicks - Math.Min(options.ChangeFeed.Retention.Ticks, DateTime.MaxValue.Ticks);
        var lowest = LowestSubscriptionPosition;
        long total = 0;
        while (true)
        {
            var pruned = await environment.ExecuteAsync(
                transaction => ChangePruner.PruneStep(transaction, cutoff, lowest, ChangePruner.StepSize, Path), cancellationToken).ConfigureAwait(false);
            total += pruned;
            if (pruned < ChangePruner.StepSize)
            {
                return total;
            }
        }
    }

    /// <summary>Starts the background pruning loop when the feed is on (at open).</summary>
    public void Start()
    {
        if (options.ChangeFeed.Enabled)
        {
            _pruneLoop = Task.Run(() => PruneLoopAsync(_closing.Token));
        }
    }

    /// <summary>Ends live feeds and the pruning loop, and waits for the loop (at dispose, before the environment closes).</summary>
    public void Stop()
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
        var retention = options.ChangeFeed.Retention;
        var interval = retention / 10 < TimeSpan.FromMinutes(1) ? retention / 10 : TimeSpan.FromMinutes(1);
        if (interval < TimeSpan.FromMilliseconds(10))
        {
            interval = TimeSpan.FromMilliseconds(10);
        }

        while (!closing.IsCancellationRequested)
        {
            await Task.Delay(interval, options.TimeProvider, closing).ConfigureAwait(false);
            try
            {
                await PruneAsync(closing).ConfigureAwait(false);
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
