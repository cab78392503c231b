using Voron.Allocation;
using Voron.Allocation.Policies;
using Voron.Paging;

namespace Voron.Transactions;

/// <summary>
/// What a page-level transaction reads and writes through, given by the store when it is opened:
/// the data file, the page table, the allocation policy the options name, and the transaction
/// registry's release horizon (A5). Every <see cref="LowLevelTransaction"/> shares one. It never
/// sees the store that owns it.
/// </summary>
internal sealed class TransactionSeams
{
    /// <summary>The data file: a page no version in memory covers is read from its mapping.</summary>
    public required Pager Pager { get; init; }

    /// <summary>Committed versions not yet in the data file (read at a snapshot), and the page buffer pool copies come from (PB1).</summary>
    public required PageTable PageTable { get; init; }

    /// <summary>The allocation policy of one write transaction, over the free-space digest's section cursor.</summary>
    public required Func<SectionCursor, IAllocationPolicy> AllocationPolicy { get; init; }

    /// <summary>A5: pages freed by transactions up to this id may return to free space (TransactionRegistry.SnapshotHorizon).</summary>
    public required Func<long> ReleaseHorizon { get; init; }
}
