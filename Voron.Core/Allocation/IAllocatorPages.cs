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

    /// <summary>Drops this transaction's copy of one of the allocator's own pages that it just freed.</summary>
    void DiscardPage(long pageNumber);
}
