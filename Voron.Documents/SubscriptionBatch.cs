using Voron.Documents.Sessions;
using Voron.Documents.Subscriptions;

namespace Voron.Documents;

/// <summary>
/// Changes a <see cref="SubscriptionWorker"/> handed out, in version order, to process and then
/// acknowledge: with <see cref="SubscriptionWorker.AcknowledgeAsync"/> (at least once), or by
/// saving the worker's own writes through <see cref="OpenSession"/> (exactly once within the store).
/// </summary>
public sealed class SubscriptionBatch
{
    private int _acknowledged;

    internal SubscriptionBatch(SubscriptionWorker worker, IReadOnlyList<DocumentChange> changes, long startPosition, long endPosition)
    {
        Worker = worker;
        Changes = changes;
        StartPosition = startPosition;
        EndPosition = endPosition;
    }

    /// <summary>The changes, in version order: at least one, at most <see cref="SubscriptionWorkerOptions.MaxBatchSize"/>.</summary>
    public IReadOnlyList<DocumentChange> Changes { get; }

    /// <summary>The subscription's position the batch was read after: an acknowledgement requires the stored position to still be this.</summary>
    public long StartPosition { get; }

    /// <summary>
    /// The position acknowledging the batch stores: the last change's version, or beyond it past
    /// changes of other collections a subscription to one collection skipped.
    /// </summary>
    public long EndPosition { get; }

    internal SubscriptionWorker Worker { get; }

    internal bool IsAcknowledged => Volatile.Read(ref _acknowledged) != 0;

    /// <summary>
    /// A session whose first successful <see cref="IAsyncDocumentSession.SaveChangesAsync"/>
    /// stores the session's changes and acknowledges this batch in one transaction (a save with no
    /// changes acknowledges alone). If the subscription moved on meanwhile (the batch was
    /// acknowledged already, or another worker acknowledged) the save throws
    /// <see cref="SubscriptionInUseException"/>, and if it was deleted
    /// <see cref="SubscriptionNotFoundException"/>: nothing of the session is written. Later saves
    /// of the same session are ordinary saves.
    /// </summary>
    public IAsyncDocumentSession OpenSession()
    {
        Worker.Store.ThrowIfDisposed();
        return new DocumentSession(Worker.Store) { Ack = new SubscriptionAck(Worker, this) };
    }

    internal void MarkAcknowledged() => Volatile.Write(ref _acknowledged, 1);
}
