using Voron.Paging;
using Voron.Transactions;
using Voron.Trees;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// Where a Voron store's pages go, read with internal access (this program sees Voron.Core's
/// internals): every tree walked by its integrity walk (BTree.Verify), each page it owns looked
/// at once (BTree.MeasureOccupancy: a leaf's used bytes, an overflow run's value bytes) and the allocator's free,
/// pending and structure pages. Runs in a write transaction that is rolled back: it excludes
/// commits and changes nothing. Reads every page: for experiments, not a hot path.
/// </summary>
internal sealed record VoronSpace(long HighWaterPages, long FreePages, long PendingPages, long StructurePages, IReadOnlyList<TreeSpace> Trees)
{
    /// <summary>Pages the trees (the root catalog included) own.</summary>
    public long TreePages => Trees.Sum(t => t.LeafPages + t.BranchPages + t.OverflowPages);

    public static VoronSpace Measure(StorageEnvironment environment)
    {
        using var write = environment.BeginWrite();
        var transaction = write.Low;
        var allocator = transaction.Allocator;
        var trees = new List<TreeSpace> { Walk("(root catalog)", transaction.Root) };
        foreach (var name in transaction.TreeNames())
        {
            trees.Add(Walk(name, transaction.OpenTree(name) ?? throw new InvalidOperationException($"tree '{name}' is listed but cannot be opened")));
        }

        long free = 0;
        for (long page = 1; page < allocator.NextPageNumber; page++)
        {
            if (allocator.IsFree(page))
            {
                free++;
            }
        }

        var pending = allocator.PendingRuns().Sum(r => (long)r.PageCount);
        return new VoronSpace(allocator.NextPageNumber, free, pending, allocator.StructurePages().Count, trees);
    }

    private static TreeSpace Walk(string name, BTree tree)
    {
        var occupancy = tree.MeasureOccupancy();
        var state = tree.State;
        return new TreeSpace(name, state.EntryCount, state.LeafPages, state.BranchPages, state.OverflowPages, occupancy.OverflowRuns,
            occupancy.LeafUsedBytes, occupancy.BranchUsedBytes, occupancy.OverflowValueBytes, occupancy);
    }
}

/// <summary>One tree's pages by kind, and how full they are.</summary>
internal sealed record TreeSpace(string Name, long Entries, long LeafPages, long BranchPages, long OverflowPages, long OverflowRuns,
    long LeafUsedBytes, long BranchUsedBytes, long OverflowValueBytes, TreeOccupancy Occupancy)
{
    /// <summary>Bytes of slots and nodes over the leaves' capacity (8,128 bytes each).</summary>
    public double LeafFill => LeafPages == 0 ? 0 : LeafUsedBytes / (double)(LeafPages * TreePage.Capacity);

    /// <summary>Bytes of overflow pages that hold no value bytes (headers and the unused tail of each run).</summary>
    public long OverflowWasteBytes => (OverflowPages * Constants.PageSize) - OverflowValueBytes;
}
