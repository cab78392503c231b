namespace Voron.Trees;

/// <summary>
/// How a tree reaches pages: the transaction's view of the store. Implemented by the
/// transaction layer (and by a plain dictionary in the tree unit tests).
/// </summary>
/// <remarks>
/// Page numbers are stable: modifying a page keeps its number (MVCC is the transaction layer's
/// page table, not copy-on-write paths), so a tree never has to rewrite a parent because a child
/// changed. Spans returned here point into transaction-owned buffers or the read-only data-file
/// mapping: they are valid until the transaction ends, and a span from <see cref="GetPage"/> may
/// go stale after <see cref="ModifyPage"/> of the same page — fetch again after modifying.
/// </remarks>
internal interface IPageAccess
{
    /// <summary>Whether this is a write transaction; trees refuse changes otherwise.</summary>
    bool IsWritable { get; }

    /// <summary>The data file's path, for <see cref="CorruptionException"/> messages (a page's
    /// offset in it is its number times <see cref="Constants.PageSize"/>).</summary>
    string DataFilePath { get; }

    /// <summary>
    /// The current version of a page as this transaction sees it: one page, or for an overflow
    /// page the whole run (its length from the header's OverflowSize). Validated on first read
    /// from the data file: a bad page raises <see cref="CorruptionException"/>.
    /// </summary>
    ReadOnlySpan<byte> GetPage(long pageNumber);

    /// <summary>
    /// Whether <paramref name="page"/>, a span <see cref="GetPage"/> returned, lies in the data
    /// file's read-only mapping. Such bytes stay at their address until the store is disposed, and
    /// the flusher does not rewrite them while a transaction that reads them is open (PG1 in
    /// Paging/Pager.cs), so a cursor may keep the address of the leaf it is on rather than fetch
    /// the leaf again for every entry (BTreeCursor). In a sealed store the same holds for a page
    /// opened into the decrypted-page cache, whose buffer is pinned and never reused (OP2, OP5),
    /// as long as the caller also keeps <paramref name="keepAlive"/> (null for mapped bytes).
    /// False for pages held in memory (versions not yet in the data file, this transaction's
    /// copies): only a reference keeps those alive.
    /// </summary>
    bool IsMapped(ReadOnlySpan<byte> page, out object? keepAlive);

    /// <summary>A writable copy of a single page (never an overflow run), made once per
    /// transaction; later calls return the same buffer.</summary>
    Span<byte> ModifyPage(long pageNumber);

    /// <summary>
    /// Whether this transaction already holds a writable copy of the page: it modified the page
    /// (<see cref="ModifyPage"/>) or created it (<see cref="AllocatePages"/>). A hint for choices
    /// that cost journal bytes only on pages the transaction has left untouched (BT12).
    /// </summary>
    bool HoldsWritableCopy(long pageNumber);

    /// <summary>
    /// Allocates <paramref name="pageCount"/> consecutive pages and returns a zeroed, writable
    /// buffer over all of them, with the page number already in the header. The caller sets the
    /// flags (and OverflowSize for a run).
    /// </summary>
    Span<byte> AllocatePages(int pageCount, out long pageNumber);

    /// <summary>
    /// As <see cref="AllocatePages"/>, for a caller that writes every byte of
    /// [64, <paramref name="filledBytes"/>) itself (an overflow run's value): only the header and
    /// the bytes after <paramref name="filledBytes"/> are zeroed, not the bytes about to be written.
    /// </summary>
    Span<byte> AllocatePagesToFill(int pageCount, int filledBytes, out long pageNumber) => AllocatePages(pageCount, out pageNumber);

    /// <summary>Frees a page, or the whole overflow run starting at it.</summary>
    void FreePages(long pageNumber, int pageCount);
}
