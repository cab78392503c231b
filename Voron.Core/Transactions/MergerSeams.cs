namespace Voron.Transactions;

/// <summary>
/// What the transaction merger needs from the store besides the commit pipeline, given when it
/// is built: the write lock and the closing token it waits on, the transaction registry's
/// generations (PT7), the committed state, the failure sink, and factories for the transactions
/// it runs operations on. It never sees the store that owns it.
/// </summary>
internal sealed class MergerSeams
{
    /// <summary>Fail-stop state: a batch stops when the store failed, and the writer reports its own unexpected failure here (M7).</summary>
    public required FailureSink Failures { get; init; }

    /// <summary>Throws when the store is disposed or failed (a submission is refused then).</summary>
    public required Action ThrowIfUnusable { get; init; }

    /// <summary>The single-writer lock (T1) a batch holds while it runs and prepares.</summary>
    public required SemaphoreSlim WriteLock { get; init; }

    /// <summary>Canceled when the store's Dispose begins (LC1): the writer stops waiting for the write lock.</summary>
    public required CancellationToken Closing { get; init; }

    /// <summary>PT7: a batch counts as a live transaction while it holds the write lock; returns its generation.</summary>
    public required Func<long> EnterGeneration { get; init; }

    /// <summary>PT7: the batch's generation ends.</summary>
    public required Action<long> ExitGeneration { get; init; }

    /// <summary>The last committed state (a batch not built on an in-flight commit begins from it).</summary>
    public required Func<CommittedState> Committed { get; init; }

    /// <summary>A writable transaction on <c>committed</c>, built on the in-flight commit <c>previous</c> when there is one.</summary>
    public required Func<CommittedState, PreparedCommit?, LowLevelTransaction> BeginTransaction { get; init; }

    /// <summary>The view of the batch's transaction one operation runs on (closed when it returns: T7, M6).</summary>
    public required Func<LowLevelTransaction, WriteTransaction> OperationView { get; init; }

    /// <summary>The exception queued operations get when the store is being disposed (M3).</summary>
    public required Func<ObjectDisposedException> Disposing { get; init; }

    /// <summary>The store's path, for the metrics' tag and the exceptions.</summary>
    public required string Path { get; init; }
}
