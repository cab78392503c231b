using Voron.Allocation;
using Voron.Header;
using Voron.Journal;

namespace Voron.Transactions;

/// <summary>
/// Everything a transaction starts from, as of the last committed transaction: its id, the
/// environment state, the free-space digest, and where its journal record ends. Immutable;
/// the environment swaps in a new one at each commit, and a transaction keeps the one it began with.
/// </summary>
internal sealed record CommittedState(long TxId, EnvironmentState State, FreeSpaceSummary FreeSpace, JournalPosition JournalEnd)
{
    /// <summary>When <see cref="TxId"/> committed, as its journal record says (UTC Unix milliseconds); 0 = not known here (the store
    /// opened on it without replaying its record): a backup then reads it from the record (SnapshotCopy).</summary>
    public long CommitTime { get; init; }
}

/// <summary>
/// A committed transaction the flusher has yet to copy to the data file. <c>Units</c> (FL10,
/// Flushing/FlushUnits.cs): the 4 KiB units it changed of each of the first <c>Units.Length</c>
/// pages; every unit of the others (freed pages) and of all when null.
/// </summary>
internal sealed record UnflushedTransaction(long TxId, long[] Pages, long Bytes, EnvironmentState State, JournalPosition JournalEnd, ulong[]? Units = null)
{
    /// <summary>IP1 (Transactions/InPlacePages.cs): every run the commit's record names, pages written in place included; null when
    /// <see cref="NamedSinglePages"/> says which, or when not known (then no page at or after its first one may be written in
    /// place while it is queued).</summary>
    public PageRun[]? Runs { get; init; }

    /// <summary>IP1, without an array of runs: the record names exactly the first this many of <c>Pages</c>, one page each
    /// (a commit of single pages, none written in place: the common one). 0 when <see cref="Runs"/> says.</summary>
    public int NamedSinglePages { get; init; }
}
