namespace Voron.Allocation;

/// <summary>
/// What the allocator needs from its transaction to keep its own pages. Kept apart from
/// <see cref="Trees.IPageAccess"/> so that allocating can never recurse into the allocator.
/// </summary>
internal interface IAllocatorPages
{
    string DataFilePath { get; }

    ReadOnlySpan<byte> GetPage(long pageNumber);

    Span<byte> ModifyPage(long pageNumber);

    /// <summary>Registers a zeroed, dirty buffer for a page the allocator just took for itself.</summary>
    Span<byte> CreatePage(long pageNumber, int pageCount);

    /// <summary>
    /// The allocator freed one of its own pages (an emptied pending page) straight into the bitmap:
    /// drop this transaction's copy, and record the free like any other (a tombstone, so an older
    /// unflushed image of the page never lands on whatever reuses its number).
    /// </summary>
    void DiscardPage(long pageNumber);
}
