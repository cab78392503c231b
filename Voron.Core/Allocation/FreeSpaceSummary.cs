namespace Voron.Allocation;

/// <summary>
/// An in-memory digest of the free-space pages as of one committed transaction, so that
/// allocation reads no page to choose a section: the bitmap page numbers, the free count of every
/// section (the same numbers the bitmap pages hold, rule FS4), and what the pending-free chain
/// holds. Immutable once published; a write transaction copies the arrays before its first
/// change (<see cref="PageAllocator"/>).
/// </summary>
/// <param name="BitmapPages">Page number of bitmap page k.</param>
/// <param name="SectionFree">Free pages of section s, for every section a bitmap page covers.</param>
/// <param name="FreePages">The sum of <paramref name="SectionFree"/>.</param>
/// <param name="PendingPages">Pages listed in the pending-free chain (freed, not yet reusable).</param>
/// <param name="OldestPendingTx">FreedBy of the chain's first entry; <see cref="long.MaxValue"/> when the chain is empty.</param>
/// <param name="Cursor">Where the allocation policy left off.</param>
internal sealed partial record FreeSpaceSummary(
    long[] BitmapPages,
    ushort[] SectionFree,
    long FreePages,
    long PendingPages,
    long OldestPendingTx,
    SectionCursor Cursor)
{
    public static FreeSpaceSummary Empty { get; } = new([], [], 0, 0, long.MaxValue, SectionCursor.Start);
}
