namespace Voron.Allocation;

/// <summary>
/// What the allocator needs from its transaction to keep its own pages. Kept apart from
/// <see cref="Trees.IPageAccess"/> so that allocating can never recurse into the allocator:
/// the allocator's pages come only from the end of the file.
/// </summary>
internal interface IAllocatorPages
{
    string DataFilePath { get; }

    ReadOnlySpan<byte> GetPage(long pageNumber);

    Span<byte> ModifyPage(long pageNumber);

    /// <summary>Registers a zeroed, dirty buffer for a page the allocator just took from the end of the file.</summary>
    Span<byte> CreatePage(long pageNumber, int pageCount);
}
