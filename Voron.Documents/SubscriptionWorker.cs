using Voron.Documents.Changes;
using Voron.Documents.Subscriptions;

namespace Voron.Documents;

/// <summary>
/// The one worker of a subscription (<see cref="DocumentSubscriptions.OpenAsync"/>): reads batches
/// of changes after the subscription's stored position and acknowledges them. Disposing it
/// releases the subscription to the next waiting worker; a batch it handed out and did not
/// acknowledge comes again. Not thread-safe: one caller at a time.
/// </summary>
public sealed class SubscriptionWorker : IAsyncDisposable
{
    private readonly SubscriptionLease _lease;
    private readonly CancellationToken _storeClosing;
    private readonly CancellationTokenSource _stopping = new();
    private readonly int _maxBatchSize;
    private readonly bool _includeJson;
    private long _position;
    private int _disposed;

    internal SubscriptionWorker(DocumentStore store, string name, byte[] nameBytes, SubscriptionRecord record, SubscriptionWorkerOptions options, SubscriptionLease lease, CancellationToken storeClosing)
    {
        Store = store;
        Name = name;
        NameBytes = nameBytes;
        Incarnation = record.Incarnation;
        Collection = record.Collection;
        _position = record.Position;
        _maxBatchSize = options.MaxBatchSize;
        _includeJson = options.IncludeJson;
        _lease = lease;
        _storeClosing = storeClosing;
    }

    /// <summary>The subscription's name.</summary>
    public string Name { get; }

    /// <summary>The acknowledged position: the stored one as this worker last read or wrote it.</summary>
    public long Position => Volatile.Read(ref _position);

    internal DocumentStore Store { get; }

    internal string StorePath => Store.Path;

    internal byte[] NameBytes { get; }

    internal long Incarnation { get; }

    internal string? Collection { get; }

    /// <summary>
    /// The next changes after the subscription's stored position, up to
    /// <see cref="SubscriptionWorkerOptions.MaxBatchSize"/>; waits for a commit when there are
    /// none. Until acknowledged, the same changes come again. Throws
    /// <see cref="SubscriptionNotFoundException"/> when the subscription was deleted,
    /// <see cref="ChangeFeedPositionException"/> when its position is older than the change log
    /// retains or above the store's last version (a store restored from a backup, or one that lost
    /// commits in a crash with lazy durability: create the subscription again from a position you
    /// know), <see cref="EnvironmentFailedException"/> when the store failed, and <see cref="ObjectDisposedException"/> when this worker or the store is disposed
    /// (also while waiting).
    /// </summary>
    public async Task<SubscriptionBatch> NextBatchAsync(CancellationToken cancellationToken = default)
    {
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _stopping.Token, _storeClosing);
        var start = -1L;
        var cursor = 0L;
        while (true)
        {
            ThrowIfUnusable();
            var changes = new List<DocumentChange>();
            long scanned;
            long seen;
            using (var read = Store.Environment.BeginRead())
            {
                if (SubscriptionTable.Find(read, NameBytes, StorePath) is not { } record || record.Incarnation != Incarnation)
                {
                    throw Deleted();
                }

                if (record.Position != start)
                {
                    start = record.Position; // the first read, or an acknowledgement in flight when this worker opened landed
                    cursor = start;
                    Volatile.Write(ref _position, start);
                }

                var oldest = ChangeLog.Oldest(read, StorePath);
                if (start < oldest)
                {
                    throw new ChangeFeedPositionException(start, oldest);
                }

                if (start > ChangeLog.Last(read, StorePath))
                {
                    throw ChangeFeedPositionException.Ahead(start, oldest, ChangeLog.Last(read, StorePath)); // CF8
                }

                ChangeLog.Read(read, cursor, Collection, _includeJson, _maxBatchSize, changes, out scanned, StorePath);
                seen = read.Id;
            }

            if (changes.Count > 0)
            {
                // SU4: a full batch ends at its last change (the read may have looked one further);
                // a short one read to the end of the log, past other collections' changes.
                var end = changes.Count == _maxBatchSize ? changes[^1].Version : Math.Max(scanned, changes[^1].Version);
                return new SubscriptionBatch(this, changes, start, end);
            }

            if (scanned > cursor)
            {
                cursor = scanned; // only other collections' changes so far: read on past them
                continue;
            }

            try
            {
                await Store.Environment.WaitForCommitAsync(seen, linked.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                ThrowIfUnusable();
                throw;
            }
        }
    }

    /// <summary>
    /// Acknowledges <paramref name="batch"/> alone: the stored position becomes its
    /// <see cref="SubscriptionBatch.EndPosition"/> once durable (at least once: a crash before
    /// this completes hands the batch out again). Throws <see cref="SubscriptionInUseException"/>
    /// when the stored position is no longer the batch's start, <see cref="SubscriptionNotFoundException"/>
    /// when the subscription was deleted; nothing is written then.
    /// </summary>
    public async Task AcknowledgeAsync(SubscriptionBatch batch, CancellationToken cancellationToken = default)
    {
        var ack = new SubscriptionAck(this, batch);
        ack.ThrowIfUnusable();
        await Store.Environment.ExecuteAsync(ack.Apply, cancellationToken).ConfigureAwait(false);
        ack.Completed();
    }

    /// <summary>Releases the subscription (the next waiting worker gets it) and ends a wait in <see cref="NextBatchAsync"/>.</summary>
    public ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _stopping.Cancel();
            _lease.Dispose();
        }

        return ValueTask.CompletedTask;
    }

    internal void CheckAcknowledgeable(SubscriptionBatch batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        if (batch.Worker != this)
        {
            throw new ArgumentException($"This batch was handed out by another worker of subscription '{batch.Worker.Name}'; acknowledge a batch through the worker that read it.", nameof(batch));
        }

        ThrowIfUnusable();
        if (batch.IsAcknowledged)
        {
            throw new InvalidOperationException($"This batch of subscription '{Name}' was acknowledged already; take the next batch.");
        }
    }

    internal void Acknowledged(SubscriptionBatch batch)
    {
        batch.MarkAcknowledged();
        Volatile.Write(ref _position, batch.EndPosition);
    }

    internal SubscriptionNotFoundException Deleted() =>
        new(Name, $"Subscription '{Name}' was deleted while this worker held it; nothing was acknowledged. Dispose the worker.");

    private void ThrowIfUnusable()
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        Store.ThrowIfDisposed();
    }
}
