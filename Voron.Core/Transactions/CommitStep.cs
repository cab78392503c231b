namespace Voron.Transactions;

/// <summary>
/// The points of the commit pipeline (Transactions/CommitPipeline.cs), in order, where the engine
/// calls <c>StorageEnvironmentOptions.CommitHook</c>: tests throw there — any exception type — to
/// check C5 (a failed commit either leaves the store fully usable or fails it, nothing in
/// between) at every step, for explicit and merged, sync and async commits. Inert without a hook.
/// </summary>
internal enum CommitStep
{
    /// <summary>Before the transaction is prepared (catalog, checksums, diffs).</summary>
    Prepare,

    /// <summary>Prepared; the journal write has not started (with async commit: possibly while the previous one is in flight).</summary>
    Prepared,

    /// <summary>About to append the record: nothing of it is written yet.</summary>
    JournalWrite,

    /// <summary>The record is durable (lazy mode: written); nothing is published yet.</summary>
    Journaled,

    /// <summary>The pages are in the page table; the committed state is not swapped yet.</summary>
    Published,

    /// <summary>The flusher has the commit (it cannot flush it yet: no flush horizon passes the committed id); new transactions do not see it yet.</summary>
    Enqueued,

    /// <summary>New transactions see the commit; its callers are not acknowledged yet.</summary>
    Visible,
}
