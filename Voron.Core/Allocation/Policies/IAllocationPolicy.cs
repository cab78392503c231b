namespace Voron.Allocation.Policies;

/// <summary>
/// Decides where a write transaction's new pages go. One instance per write transaction, started
/// from the <see cref="SectionCursor"/> the previous transaction left; it only chooses — the
/// allocator marks the pages taken.
/// </summary>
internal interface IAllocationPolicy
{
    /// <summary>The first page of a free run of <paramref name="count"/> pages, or -1: take them from the end of the file.</summary>
    long Place(ISectionView map, int count);

    /// <summary>Where this policy left off, for the next transaction.</summary>
    SectionCursor Cursor { get; }
}
