namespace Voron.Documents.Subscriptions;

// SU1. A subscription's stored position moves only by an acknowledgement, from the batch's
//      StartPosition to its EndPosition, checked and written in one transaction: the position
//      must still be StartPosition (and the subscription the one the worker opened), else the
//      operation throws and nothing of it is written. An acknowledgement made through
//      SubscriptionBatch.OpenSession() runs at the end of that session's WriteBatch.Apply, so the
//      worker's documents and the new position commit together or not at all (exactly once
//      within one store).

/// <summary>
/// The acknowledgement of one batch, applied inside a merged operation: alone
/// (<see cref="SubscriptionWorker.AcknowledgeAsync"/>) or at the end of a session's
/// <c>WriteBatch.Apply</c> (<see cref="SubscriptionBatch.OpenSession"/>). It may run more than
/// once (M1): it only reads and writes the transaction.
/// </summary>
internal sealed class SubscriptionAck(SubscriptionWorker worker, SubscriptionBatch batch)
{
    /// <summary>Refuses, before any transaction, a batch of another worker, an acknowledged one, or a disposed worker's.</summary>
    public void ThrowIfUnusable() => worker.CheckAcknowledgeable(batch);

    /// <summary>SU1: checks the stored position is the batch's start and writes its end.</summary>
    public void Apply(WriteTransaction transaction)
    {
        var tree = transaction.OpenTree(SubscriptionRecord.Tree);
        if (tree == null || !tree.TryGet(worker.NameBytes, out var value))
        {
            throw worker.Deleted();
        }

        var record = SubscriptionRecord.Decode(worker.NameBytes, value, worker.StorePath);
        if (record.Incarnation != worker.Incarnation)
        {
            throw worker.Deleted();
        }

        if (record.Position != batch.StartPosition)
        {
            throw new SubscriptionInUseException(worker.Name,
                $"Subscription '{worker.Name}' is at position {record.Position}, not at {batch.StartPosition} where this batch starts: " +
                "the batch was acknowledged already, or another worker acknowledged meanwhile. Nothing of this save was written; take the next batch.");
        }

        var updated = SubscriptionRecord.Encode(batch.EndPosition, record.Incarnation, value[SubscriptionRecord.CollectionOffset..]);
        tree.Put(worker.NameBytes, updated);
    }

    /// <summary>The transaction committed: the worker's position is the batch's end.</summary>
    public void Completed() => worker.Acknowledged(batch);
}
