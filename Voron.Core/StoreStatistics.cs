namespace Voron;

/// <summary>The make-up of a store as of one snapshot (<see cref="StorageEnvironment.GetStatistics"/>).</summary>
/// <param name="TransactionId">The snapshot.</param>
/// <param name="DataFileBytes">The data file's length on disk.</param>
/// <param name="AllocatedPages">The allocation high-water mark in pages (page 0 included).</param>
/// <param name="FreePages">Free pages below it, pending ones included.</param>
/// <param name="PendingFreePages">Freed pages not yet reusable.</param>
/// <param name="Trees">Every named tree and the root catalog.</param>
/// <param name="Sections">Free space per 4 MiB section.</param>
/// <param name="JournalFiles">The journal files on disk.</param>
/// <param name="ScratchBytes">Bytes of page versions spilled to the scratch file.</param>
/// <param name="PageVersionMemoryBytes">Bytes of page versions held in memory.</param>
/// <param name="OldestReader">The oldest open read transaction, if any.</param>
public sealed record StoreStatistics(long TransactionId, long DataFileBytes, long AllocatedPages, long FreePages, long PendingFreePages,
    IReadOnlyList<TreeStatistics> Trees, IReadOnlyList<SectionStatistics> Sections, IReadOnlyList<JournalFileStatistics> JournalFiles,
    long ScratchBytes, long PageVersionMemoryBytes, SnapshotPin? OldestReader);

/// <summary>One tree's pages by kind and how full they are.</summary>
/// <param name="Name">The tree's name; <c>$root</c> for the catalog.</param>
/// <param name="Entries">Entries.</param>
/// <param name="Depth">Levels (1 = a single leaf).</param>
/// <param name="LeafPages">Leaf pages.</param>
/// <param name="BranchPages">Branch pages.</param>
/// <param name="OverflowPages">Pages of overflow runs (values too large for a leaf).</param>
/// <param name="RawPages">Raw blocks of a page file (0 for other trees).</param>
/// <param name="LeafFill">Used bytes of the leaves ÷ their capacity, 0..1.</param>
/// <param name="BranchFill">Used bytes of the branches ÷ their capacity, 0..1.</param>
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
/// <param name="State"><c>active</c> (being appended to), <c>needed</c> (holds records not yet synced to the data file) or <c>released</c> (about to be deleted or archived).</param>
public sealed record JournalFileStatistics(long Number, long Bytes, string State);
