using Voron.Allocation.Policies;

namespace Voron.Allocation;

// Design notes — the page allocator (free space per 4 MiB section, pending frees, a policy).
//
// One allocator per write transaction, started from the committed FreeSpaceSummary and the
// committed NextPageNumber; commit publishes its summary with the new state, rollback drops it
// (every change it made is in the transaction's dirty pages). The free-space pages are described
// in FreeSpaceFormat.cs. Where new pages go is the policy's choice (Policies/: sections or first
// fit); this type keeps the books.
//
//   Allocate(count): release pending frees (once per transaction, A5) -> policy.Place(count)
//                    -> take the run's bits, or extend NextPageNumber when the policy says -1
//   Free(first, count): pages this transaction allocated -> their bits at once (A6);
//                    others -> an entry (tx id, run) appended to the pending chain (A5)
//
// Invariants:
//   A1. A page is free iff its bit is set; its section's count (in memory and on its bitmap page)
//       is the number of set bits. Pages at or above NextPageNumber and page 0 have no bit set.
//   A2. The directory and bitmap pages are taken from the end of the file, never from the bitmap,
//       and are never freed. Pending pages are ordinary allocations; an emptied one is freed at
//       once (no reader reads free-space pages), with a tombstone like any freed page
//       (IAllocatorPages.DiscardPage). Nothing the allocator does for itself frees a tree page or
//       appends a pending entry, so it cannot recurse.
//   A3. Every page below NextPageNumber is owned exactly once: by a tree, by the free-space
//       structures, by a pending entry, or by a set bit (StorageEnvironment.CheckIntegrity, FS8).
//   A4. Freeing a page that is free, or allocating one that is not, is a bug and throws at once.
//   A5. Pages freed by transaction T (other than A6's) become free only in a later write
//       transaction that, at its first Allocate or Free, finds T published and every live
//       reader's snapshot >= T: until then a reader may still reach them. (Page numbers are
//       stable and readers find old versions in the page table, so reusing at once would be safe
//       here — Transactions/PageTable.cs PT3 — but delaying keeps old versions intact for readers
//       and for the integrity check, as the design asks.) Releasing only there means a
//       transaction that allocates nothing writes no free-space page.
//   A6. A run freed by the transaction that allocated it was never visible to anyone and is free
//       again at once.

/// <summary>Allocates and frees pages for one write transaction.</summary>
internal sealed partial class PageAllocator : ISectionView
{
    private readonly IAllocatorPages _pages;
    private readonly IAllocationPolicy _policy;
    private readonly long _txId;
    private readonly Func<long> _releaseHorizon;
    private readonly Dictionary<long, int> _allocatedHere = [];
    private readonly HashSet<long> _freedHere = [];
    private long[] _bitmapPages;
    private ushort[] _sectionFree;
    private bool _ownsArrays;
    private long _freePages;
    private long _pendingPages;
    private long _oldestPendingTx;
    private bool _released;

    /// <param name="pages">The transaction's pages.</param>
    /// <param name="summary">Free space as of the transaction this one starts from.</param>
    /// <param name="nextPageNumber">The end of allocation as of that transaction.</param>
    /// <param name="directoryPage">The free-space directory (EnvironmentState.FreeSpaceRoot), 0 if none yet.</param>
    /// <param name="txId">This transaction's id: the FreedBy of the runs it frees.</param>
    /// <param name="policy">Where new pages go.</param>
    /// <param name="releaseHorizon">Pending runs freed by transactions up to this id may be released (A5).</param>
    public PageAllocator(IAllocatorPages pages, FreeSpaceSummary summary, long nextPageNumber, long directoryPage,
        long txId, IAllocationPolicy policy, Func<long> releaseHorizon)
    {
        _pages = pages;
        _bitmapPages = summary.BitmapPages;
        _sectionFree = summary.SectionFree;
        _freePages = summary.FreePages;
        _pendingPages = summary.PendingPages;
        _oldestPendingTx = summary.OldestPendingTx;
        _txId = txId;
        _policy = policy;
        _releaseHorizon = releaseHorizon;
        NextPageNumber = nextPageNumber;
        DirectoryPage = directoryPage;
    }

    /// <summary>Pages at or above this number were never allocated.</summary>
    public long NextPageNumber { get; private set; }

    /// <summary>The free-space directory page; 0 until the first page is freed.</summary>
    public long DirectoryPage { get; private set; }

    public ReadOnlySpan<ushort> SectionFree => _sectionFree;

    public long FreePages => _freePages;

    /// <summary>Pages freed but not yet reusable (A5).</summary>
    public long PendingPages => _pendingPages;

    /// <summary>The policy of this transaction (tests look at its state).</summary>
    internal IAllocationPolicy Policy => _policy;

    /// <summary>The digest to publish with this transaction. The transaction must not allocate afterwards.</summary>
    public FreeSpaceSummary ToSummary()
    {
        _ownsArrays = false; // the summary now shares them: copy again before any further change
        return new FreeSpaceSummary(_bitmapPages, _sectionFree, _freePages, _pendingPages, _oldestPendingTx, _policy.Cursor);
    }

    /// <summary>Takes <paramref name="count"/> consecutive pages where the policy says, else at the end of the file.</summary>
    public long Allocate(int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        ReleaseOnce();
        var first = Take(count);
        _allocatedHere[first] = count;
        return first;
    }

    /// <summary>Frees <paramref name="count"/> pages from <paramref name="first"/>: at once if this transaction allocated them (A6), else pending (A5).</summary>
    public void Free(long first, int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        if (first <= 0 || first > NextPageNumber - count)
        {
            throw new InvalidOperationException($"Freeing pages [{first}, {first + count}) which were never allocated (next page {NextPageNumber}).");
        }

        ReleaseOnce();
        if (_allocatedHere.Remove(first, out var allocated))
        {
            if (allocated != count)
            {
                throw new InvalidOperationException($"Freeing {count} pages from {first}, which this transaction allocated as a run of {allocated}.");
            }

            ChangeBits(first, count, free: true); // A6
            return;
        }

        if (!_freedHere.Add(first))
        {
            throw new InvalidOperationException($"A4: page {first} is freed twice by transaction {_txId}.");
        }

        RequireAllocated(first, count);
        AppendPending(new PendingRun(_txId, first, count));
    }

    /// <summary>A run where the policy places it, else at the end of the file (also the allocator's pending pages, A2).</summary>
    private long Take(int count)
    {
        var first = _policy.Place(this, count);
        if (first < 0)
        {
            return AllocateAtEnd(count);
        }

        ChangeBits(first, count, free: false);
        return first;
    }

    private void ReleaseOnce()
    {
        if (_released)
        {
            return;
        }

        _released = true;
        if (_oldestPendingTx == long.MaxValue)
        {
            return;
        }

        var horizon = _releaseHorizon();
        if (horizon >= _oldestPendingTx)
        {
            ReleasePending(Math.Min(horizon, _txId - 1));
        }
    }

    private long AllocateAtEnd(int count)
    {
        var first = NextPageNumber;
        if (first + count > (long)FreeSpaceFormat.MaxBitmapPages * FreeSpaceFormat.PagesPerBitmap)
        {
            throw new InvalidOperationException($"The data file cannot grow past {(long)FreeSpaceFormat.MaxBitmapPages * FreeSpaceFormat.PagesPerBitmap} pages in free-space format version {FreeSpaceFormat.Version}.");
        }

        NextPageNumber += count;
        return first;
    }
}
