namespace Voron;

/// <summary>
/// The make-up of a store (<see cref="StorageEnvironment.GetStatistics"/>). Trees, allocation,
/// free space and sections are of one snapshot, <see cref="TransactionId"/>, and add up: the
/// sections' free pages sum to <see cref="FreePages"/>. Journal files, the data file's length,
/// memory and the oldest reader are read at the call.
/// </summary>
/// <param name="TransactionId">The snapshot: the last transaction committed when the statistics began.</param>
/// <param name="DataFileBytes">The data file's length on disk (it grows ahead of allocation).</param>
/// <param name="AllocatedPages">The allocation high-water mark in pages (page 0 included).</param>
/// <param name="FreePages">Free pages below it, pending ones included (as <see cref="IntegrityReport.FreePages"/>).</param>
/// <param name="PendingFreePages">Freed pages not yet reusable: the next write transaction that allocates releases those no reader can still see.</param>
/// <param name="Trees">The root catalog (<c>$root</c>) first, then every named tree in name order, page-file and document trees included.</param>
/// <param name="Sections">Free space per 4 MiB section, for every section below the high-water mark.</param>
/// <param name="JournalFiles">The journal files on disk, by number.</param>
/// <param name="ScratchBytes">Bytes of page versions spilled to the scratch file (readers held them past the memory budget).</param>
/// <param name="PageVersionMemoryBytes">Bytes of committed page versions held in memory until the data file has them.</param>
/// <param name="OldestReader">The oldest open read transaction other than the statistics' own, if any.</param>
public sealed record StoreStatistics(long TransactionId, long DataFileBytes, long AllocatedPages, long FreePages, long PendingFreePages,
    IReadOnlyList<TreeStatistics> Trees, IReadOnlyList<SectionStatistics> Sections, IReadOnlyList<JournalFileStatistics> JournalFiles,
    long ScratchBytes, long PageVersionMemoryBytes, SnapshotPin? OldestReader)
{
    /// <summary>
    /// An encrypted store's cache of decrypted pages (<see cref="StorageEnvironmentOptions.DecryptedPageCacheSize"/>),
    /// read at the call; null for a store that is not encrypted.
    /// </summary>
    public DecryptedPageCacheStatistics? DecryptedPages { get; init; }
}

/// <summary>An encrypted store's cache of decrypted pages (<see cref="StoreStatistics.DecryptedPages"/>).</summary>
/// <param name="CapacityBytes">Its size: <see cref="StorageEnvironmentOptions.DecryptedPageCacheSize"/>.</param>
/// <param name="Bytes">Bytes of decrypted pages it holds now (at most <paramref name="CapacityBytes"/>).</param>
/// <param name="Pages">Entries it holds now (a run of overflow pages is one).</param>
/// <param name="Misses">Reads since the open that found no entry for the page's current version, so decrypted it.</param>
/// <param name="Evictions">Entries dropped since the open to stay within <paramref name="CapacityBytes"/>.</param>
public sealed record DecryptedPageCacheStatistics(long CapacityBytes, long Bytes, int Pages, long Misses, long Evictions);

/// <summary>One tree's pages by kind and how full they are, counted from its pages.</summary>
/// <param name="Name">The tree's name; <c>$root</c> for the catalog.</param>
/// <param name="Entries">Entries (keys); a page file's tree counts its metadata entry too.</param>
/// <param name="Depth">Levels (1 = a single leaf, 0 = empty).</param>
/// <param name="LeafPages">Leaf pages.</param>
/// <param name="BranchPages">Branch pages.</param>
/// <param name="OverflowPages">Pages of overflow runs (values too large for a leaf), from the sizes in the leaves.</param>
/// <param name="RawPages">Raw blocks of a page file: one page per block entry (0 for other trees).</param>
/// <param name="LeafFill">Bytes the leaves' slots and nodes use ÷ their capacity (8,128 bytes a page: all but the page header), 0..1; 0 without leaves.</param>
/// <param name="BranchFill">The same for the branches; 0 without branches.</param>
public sealed record TreeStatistics(string Name, long Entries, int Depth, long LeafPages, long BranchPages, long OverflowPages, long RawPages,
    double LeafFill, double BranchFill);

/// <summary>Free space in one 4 MiB section of the data file.</summary>
/// <param name="Index">The section's number (section k holds pages [k × 512, (k + 1) × 512)).</param>
/// <param name="Pages">Pages of the section below the allocation high-water mark.</param>
/// <param name="FreePages">Of those, free (pending included).</param>
public sealed record SectionStatistics(long Index, int Pages, int FreePages);

/// <summary>One journal file on disk.</summary>
/// <param name="Number">Its number (the file name).</param>
/// <param name="Bytes">Its length (preallocated space included).</param>
/// <param name="State"><c>active</c> (being appended to), <c>needed</c> (recovery from the durable header would read it: it holds records not yet synced to the data file) or <c>released</c> (before the durable header's recovery start: about to be deleted or archived).</param>
public sealed record JournalFileStatistics(long Number, long Bytes, string State);
