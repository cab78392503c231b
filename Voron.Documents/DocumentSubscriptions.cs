using Voron.Documents.Changes;
using Voron.Documents.Storage;
using Voron.Documents.Subscriptions;

namespace Voron.Documents;

// Design notes — subscriptions.
//
//   CreateAsync -> a record in @docs.subs (Subscriptions/SubscriptionRecord.cs: FORMAT)
//   OpenAsync   -> the name's in-process lease (Subscriptions/SubscriptionLeases.cs, SU2) -> a worker
//   worker.NextBatchAsync: one short read transaction per read: the record (deleted? moved?), the
//     log's oldest position, up to MaxBatchSize changes after the position (ChangeLog.Read); none:
//     wait for the next commit (StorageEnvironment.WaitForCommitAsync) and read again
//   acknowledge: alone (AcknowledgeAsync) or at the end of a session's WriteBatch.Apply
//     (SubscriptionBatch.OpenSession): Subscriptions/SubscriptionAck.cs, SU1
//
// Invariants (SU1 in Subscriptions/SubscriptionAck.cs, SU2 in Subscriptions/SubscriptionLeases.cs,
// SU5..SU8 in the FORMAT block):
//   SU3. The change log keeps every change above the lowest subscription position: pruning
//        stops there (SubscriptionTable.LowestPosition), whatever the retention, so a
//        subscription never misses a change it has not acknowledged.
//   SU4. A batch's changes are the next ones after its StartPosition (of its collection, if it
//        has one), in version order, none skipped; its EndPosition is the largest version the
//        read looked at, so acknowledging it also moves past the changes of other collections
//        read on the way, and never past a change of its own collection it did not hand out.

/// <summary>
/// Named cursors over the store's change feed, kept in the store (<c>@docs.subs</c>): each has a
/// position, the last document version acknowledged, and optionally a collection. One worker at
/// a time processes a subscription (<see cref="OpenAsync"/>); acknowledging a batch moves the
/// position in one transaction, together with the worker's own writes when it saves them
/// through <see cref="SubscriptionBatch.OpenSession"/>.
/// </summary>
public sealed class DocumentSubscriptions
{
    private readonly DocumentStore _store;
    private readonly SubscriptionLeases _leases;

    internal DocumentSubscriptions(DocumentStore store, CancellationToken storeClosing)
    {
        _store = store;
        _leases = new SubscriptionLeases(storeClosing);
    }

    /// <summary>
    /// Creates subscription <paramref name="name"/> at position <paramref name="since"/> (its first
    /// batch holds the changes after it; 0: every change the log holds, from
    /// <see cref="DocumentStore.OldestChangePosition"/>, which is the position stored). Throws
    /// <see cref="InvalidOperationException"/> when it exists, <see cref="ArgumentOutOfRangeException"/>
    /// when <paramref name="since"/> is negative or past the store's last version, and
    /// <see cref="ChangeFeedPositionException"/> when it is not 0 and older than the change log retains;
    /// <see cref="InvalidOperationException"/> too when the change feed is off (<see cref="ChangeFeedOptions.Enabled"/>).
    /// </summary>
    /// <param name="name">1 to 200 UTF-8 bytes, no control characters.</param>
    /// <param name="since">The position to start after: a document version.</param>
    /// <param name="collection">The one collection to follow; null for all.</param>
    /// <param name="cancellationToken">Cancels until the transaction starts.</param>
    public Task CreateAsync(string name, long since = 0, string? collection = null, CancellationToken cancellationToken = default)
    {
        var nameBytes = SubscriptionRecord.NameBytes(name);
        ArgumentOutOfRangeException.ThrowIfNegative(since);
        var collectionBytes = collection == null ? [] : DocumentNames.CollectionBytes(collection);
        _store.ThrowIfDisposed();
        _store.ThrowIfReplica("Subscriptions.CreateAsync"); // I9
        ThrowIfFeedOff();
        var incarnation = SubscriptionRecord.NewIncarnation();
        var path = _store.Path;
        return _store.Environment.ExecuteAsync(transaction =>
        {
            var meta = transaction.OpenTree(DocumentTrees.Meta);
            var last = meta == null ? 0 : DocumentTrees.ReadInt64(meta, DocumentTrees.VersionKey, path);
            if (since > last)
            {
                throw new ArgumentOutOfRangeException(nameof(since), since, $"The store's last version is {last}; a subscription starts at or before it.");
            }

            var oldest = ChangeLog.Oldest(transaction, path);
            var start = since == 0 ? oldest : since; // CF8: 0 is the oldest retained position
            if (start < oldest)
            {
                throw new ChangeFeedPositionException(since, oldest);
            }

            var tree = transaction.CreateTree(SubscriptionRecord.Tree);
            if (tree.TryGet(nameBytes, out _))
            {
                throw new InvalidOperationException($"A subscription named '{name}' exists already; open it, or delete it first.");
            }

            tree.Put(nameBytes, SubscriptionRecord.Encode(start, incarnation, collectionBytes));
        }, cancellationToken);
    }

    /// <summary>
    /// Deletes subscription <paramref name="name"/>; false when there is none. A worker holding it
    /// fails at its next call (<see cref="SubscriptionNotFoundException"/>).
    /// </summary>
    public Task<bool> DeleteAsync(string name, CancellationToken cancellationToken = default)
    {
        var nameBytes = SubscriptionRecord.NameBytes(name);
        _store.ThrowIfDisposed();
        _store.ThrowIfReplica("Subscriptions.DeleteAsync"); // I9
        return _store.Environment.ExecuteAsync(transaction => transaction.OpenTree(SubscriptionRecord.Tree) is { } tree && tree.Delete(nameBytes), cancellationToken);
    }

    /// <summary>Subscription <paramref name="name"/> as stored now, or null when there is none.</summary>
    public Task<SubscriptionState?> GetAsync(string name, CancellationToken cancellationToken = default)
    {
        var nameBytes = SubscriptionRecord.NameBytes(name);
        cancellationToken.ThrowIfCancellationRequested();
        _store.ThrowIfDisposed();
        using var read = _store.Environment.BeginRead();
        var state = SubscriptionTable.Find(read, nameBytes, _store.Path) is { } record ? new SubscriptionState(name, record.Collection, record.Position) : null;
        return Task.FromResult(state);
    }

    /// <summary>
    /// The worker of subscription <paramref name="name"/>; dispose it to release the subscription.
    /// While another worker holds it, waits up to <see cref="SubscriptionWorkerOptions.WaitTimeout"/>
    /// (zero: not at all), then throws <see cref="SubscriptionInUseException"/>. Throws
    /// <see cref="SubscriptionNotFoundException"/> for an unknown name, and
    /// <see cref="ObjectDisposedException"/> when the store is (or gets) disposed, and
    /// <see cref="InvalidOperationException"/> when the change feed is off.
    /// </summary>
    public async Task<SubscriptionWorker> OpenAsync(string name, SubscriptionWorkerOptions? options = null, CancellationToken cancellationToken = default)
    {
        var nameBytes = SubscriptionRecord.NameBytes(name);
        options = (options ?? new SubscriptionWorkerOptions()).Validated();
        _store.ThrowIfDisposed();
        _store.ThrowIfReplica("Subscriptions.OpenAsync (a worker writes its position as it acknowledges)"); // I9: follow Changes on a replica instead
        ThrowIfFeedOff();
        _ = await GetAsync(name, cancellationToken).ConfigureAwait(false) ?? throw new SubscriptionNotFoundException(name);
        var lease = await _leases.AcquireAsync(name, options.WaitTimeout, cancellationToken).ConfigureAwait(false);
        try
        {
            _store.ThrowIfDisposed();
            using var read = _store.Environment.BeginRead();
            var record = SubscriptionTable.Find(read, nameBytes, _store.Path) ?? throw new SubscriptionNotFoundException(name); // deleted while waiting
            return new SubscriptionWorker(_store, name, nameBytes, record, options, lease, _leases.Closing);
        }
        catch
        {
            lease.Dispose();
            throw;
        }
    }

    /// <summary>Subscriptions read the change log: with the feed off nothing is logged, so creating or opening one is refused (reading and deleting are not).</summary>
    private void ThrowIfFeedOff()
    {
        if (!_store.Options.ChangeFeed.Enabled)
        {
            throw new InvalidOperationException("The change feed is off for this store, and subscriptions read it: set DocumentStoreOptions.ChangeFeed.Enabled = true and open the store again.");
        }
    }
}
