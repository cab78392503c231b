using Voron.Allocation;

namespace Voron;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Walks the whole store as of the last commit and checks that every page below the
    /// allocation high-water mark is owned exactly once — by a tree (its pages and overflow runs),
    /// by the free-space structures (directory, bitmaps, pending chain), by a pending-free entry
    /// (freed, not yet reusable), or as a free page — that each section's free count matches its
    /// bitmap, that the free-space pages pass their format rules, that every tree is well-formed
    /// with exact counts, that every page file's blocks are owned once and match their checksums,
    /// and that every page read passes its checksum. Throws
    /// <see cref="CorruptionException"/> or <see cref="InvalidOperationException"/> describing the
    /// first violation. Reads every page: for tests and offline checks, not a hot path.
    /// </summary>
    public IntegrityReport CheckIntegrity() => CheckIntegrity(progress: null);

    /// <summary>
    /// <see cref="CheckIntegrity()"/>, reporting pages checked to <paramref name="progress"/> and
    /// stopping with <see cref="OperationCanceledException"/> when <paramref name="cancellationToken"/> is cancelled.
    /// </summary>
    /// <remarks>
    /// A page counts as checked once the check has accounted for it (read and verified as a tree
    /// page, or found to be free-space structure, pending-free or free); page 0, the identity page,
    /// counts from the start. Reports come every 2,000 pages or every 1% of the pages, whichever
    /// is more often, and a last one with <see cref="IntegrityProgress.PagesChecked"/> equal to
    /// <see cref="IntegrityProgress.TotalPages"/> when the check passes; they never go down. The
    /// token is observed between pages (and between overflow runs, which are claimed whole).
    /// </remarks>
    public IntegrityReport CheckIntegrity(IProgress<IntegrityProgress>? progress, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        using var write = BeginWriteCore(); // excludes commits (and a replica's apply); the allocator view needs a write transaction; never committed
        var transaction = write.Low;
        var allocator = transaction.Allocator; // only read here: reading releases no pending frees
        var next = allocator.NextPageNumber;
        var owner = new string?[next];
        var reportEvery = Math.Clamp(next / 100, 1, 2_000);
        long checkedPages = 1; // page 0, the identity page: checked when the store was opened
        var reported = 0L;
        void Claim(long first, int count, string what)
        {
            cancellationToken.ThrowIfCancellationRequested();
            for (var page = first; page < first + count; page++)
            {
                if (page <= 0 || page >= next)
                {
                    throw new InvalidOperationException($"Integrity: {what} owns page {page}, outside [1, {next}).");
                }

                if (owner[page] is { } other)
                {
                    throw new InvalidOperationException($"Integrity: page {page} is owned twice, by {other} and by {what}.");
                }

                owner[page] = what;
            }

            // Every claim is of pages not claimed before (the checks above), so the count only
            // grows and ends at next when every page is accounted for.
            checkedPages += count;
            if (progress != null && checkedPages - reported >= reportEvery && checkedPages < next)
            {
                reported = checkedPages;
                progress.Report(new IntegrityProgress(checkedPages, next));
            }
        }

        transaction.Root.Verify((page, count) => Claim(page, count, "the root tree"));
        var names = transaction.TreeNames();
        long entries = 0;
        foreach (var name in names)
        {
            var tree = transaction.OpenTree(name) ?? throw new InvalidOperationException($"Integrity: tree '{name}' is listed but cannot be opened.");
            var label = $"tree '{name}'";
            tree.Verify((page, count) => Claim(page, count, label));
            entries += tree.State.EntryCount;
            if (PageFiles.PageFileFormat.IsPageFileTree(name))
            {
                // A page file's blocks are raw pages its map owns (PageFiles/PageFileFormat.cs PF4).
                PageFiles.PageFileView.Open(transaction, name[PageFiles.PageFileFormat.TreePrefix.Length..])!.Verify(Claim);
            }
        }

        var treePages = owner.LongCount(o => o != null);

        // The free-space pages by their format rules (FS1-FS7), then the counts against the bits (A1).
        FreeSpaceSummary.Load(transaction, allocator.DirectoryPage, next);
        allocator.VerifySectionCounts();
        var structures = allocator.StructurePages();
        foreach (var page in structures)
        {
            Claim(page, 1, "the free-space structures");
        }

        long pending = 0;
        foreach (var run in allocator.PendingRuns())
        {
            if (run.FreedBy > transaction.Committed.TxId)
            {
                throw new InvalidOperationException($"Integrity: pending pages [{run.FirstPage}, {run.FirstPage + run.PageCount}) were freed by transaction {run.FreedBy}, after the last commit {transaction.Committed.TxId}.");
            }

            Claim(run.FirstPage, run.PageCount, $"the pending-free list (freed by transaction {run.FreedBy})");
            pending += run.PageCount;
        }

        long free = 0;
        for (long page = 1; page < next; page++)
        {
            if (allocator.IsFree(page))
            {
                Claim(page, 1, "free space");
                free++;
            }
            else if (owner[page] == null)
            {
                throw new InvalidOperationException($"Integrity: page {page} is neither free nor owned by anything (a leak).");
            }
        }

        progress?.Report(new IntegrityProgress(checkedPages, next)); // every page is owned once by now: checkedPages == next
        return new IntegrityReport(transaction.Committed.TxId, names.Count, entries, next, free + pending, pending, structures.Count, treePages);
    }
}

/// <summary>What <see cref="StorageEnvironment.CheckIntegrity()"/> found.</summary>
/// <param name="TransactionId">The last committed transaction the check saw.</param>
/// <param name="Trees">Named trees.</param>
/// <param name="Entries">Entries in all named trees.</param>
/// <param name="Pages">The allocation high-water mark: pages of the data file in use or free, page 0 included.</param>
/// <param name="FreePages">Pages freed and owned by nothing else: reusable now, or pending (<paramref name="PendingFreePages"/>).</param>
/// <param name="PendingFreePages">Freed pages not yet reusable: a reader may still predate their freeing, or no write transaction has released them yet.</param>
/// <param name="FreeSpaceStructurePages">Pages the free-space directory, bitmaps and pending chain take.</param>
/// <param name="TreePages">Pages the trees (the root catalog included) own: the live data.</param>
public sealed record IntegrityReport(long TransactionId, int Trees, long Entries, long Pages, long FreePages,
    long PendingFreePages = 0, long FreeSpaceStructurePages = 0, long TreePages = 0)
{
    /// <summary>Free pages the next allocation may take: <see cref="FreePages"/> less the pending ones.</summary>
    public long ReusablePages => FreePages - PendingFreePages;
}
