using Voron.Header;
using Voron.Journal;
using Voron.Paging;
using Voron.Transactions;

namespace Voron.Flushing;

/// <summary>
/// What the data-file flusher needs, given when it is built: the journal, the page table, the
/// pager, a header writer, the failure sink, and the few functions of the transaction registry a
/// flush depends on (the horizon: FL1, FL8; what pruning keeps: PT6, PT7). It never sees the
/// store that owns it.
/// </summary>
internal sealed class FlusherSeams
{
    public required JournalWriter Journal { get; init; }

    public required PageTable PageTable { get; init; }

    public required Pager Pager { get; init; }

    /// <summary>Writes a header to the other copy and syncs it (FL3: before journal files are released).</summary>
    public required Action<HeaderRecord> WriteHeader { get; init; }

    /// <summary>Fail-stop state: a flush that fails fails the store (FL6).</summary>
    public required FailureSink Failures { get; init; }

    /// <summary>FL1, FL8: fixes the flush's horizon F in one step and pins it for pruning.</summary>
    public required Func<long> PinFlushHorizon { get; init; }

    /// <summary>FL8: the flush is over; pruning no longer keeps versions for F.</summary>
    public required Action UnpinFlushHorizon { get; init; }

    /// <summary>PT6, PT7: the live snapshots, the committed transaction and the oldest live generation, in one step.</summary>
    public required Func<VersionRetention> CaptureRetention { get; init; }

    /// <summary>PT7: the generation slots of spilled versions just removed wait on.</summary>
    public required Func<long> RetireGeneration { get; init; }

    /// <summary>What the oldest live reader holds back (FL7), null when no reader is live.</summary>
    public required Func<SnapshotPin?> OldestSnapshotPin { get; init; }

    /// <summary>Whether the store is disposed (the background flush then leaves the last flush to Close).</summary>
    public required Func<bool> IsDisposed { get; init; }

    /// <summary>The exception a flush asked for after the store released its files gets (LC5).</summary>
    public required Func<ObjectDisposedException> Disposed { get; init; }

    /// <summary>The store's path, for the metrics' tag.</summary>
    public required string Path { get; init; }
}
