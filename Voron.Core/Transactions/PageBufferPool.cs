namespace Voron.Transactions;

// Design notes — recycled page buffers (PB1..PB5).
//
// A write transaction copies every page it modifies or creates into an 8 KiB buffer, and the
// commit publishes that buffer as a page version (PageTable.cs). Allocating each from the pinned
// object heap is slow (the heap's allocation lock and a fresh segment's pages), and the garbage
// sets off background gen-2 collections: both show in profiles of small commits
// (docs/results/2026-12-06-code-comment-measurements.md).
// So buffers that leave the page table come back here and are handed to later copies.
//
//   PB1. A buffer is handed out again only when no transaction can hold a span into it: it left
//        the page table (pruned, flushed and removed, or spilled) and was retired with a
//        generation no older than that of any transaction that could have found it
//        (TransactionRegistry.Generations.cs; the same rule as scratch slots, PageTable PT7), and
//        every transaction of that generation or an older one has ended (ReleaseRetired). A
//        merged batch built on the in-flight commit reads that commit's buffers through the
//        commit, not the table, so it counts in the commit's generation (TransactionMerger M9).
//   PB2. Only buffers of whole pages come back: single pages and overflow runs of up to
//        MaxPooledRunPages pages (a value up to ~64 KiB; each 12–20 KiB value allocated its
//        run's 16–24 KiB otherwise), each size handed out only for a copy of that size. Longer
//        runs are left to the garbage collector.
//   PB3. Bounded in pages: at most Capacity pages' worth of buffers wait for their generation and
//        Capacity more wait to be handed out; past that the oldest retired (or the newest
//        released) buffer is dropped for the garbage collector. Dropping is always safe:
//        recycling is an optimisation, and a buffer nobody returns is collected like any other array.
//   PB4. Debug builds fill a released buffer with 0xDB: a transaction that still read it would
//        see garbage (checksum failures, wrong values), so every test checks PB1.
//   PB5. Debug builds also keep a ledger of where each buffer is (handed out, a page version's
//        bytes, retired, free) and throw at the move that breaks PB1: a buffer published while
//        another version or the free list has it, retired twice, or handed out while not free
//        (PageBufferPool.Ledger.cs). A read of a released buffer is what PB4 is for.
//
// Threading: Retire and ReleaseRetired run under the page table's lock; Rent runs on the writer
// (one at a time, under the write lock) while the flusher may release; the free list has its own
// lock.

/// <summary>The page buffers page versions leave behind, handed to later copy-on-write copies (PB1..PB5 above).</summary>
internal sealed partial class PageBufferPool
{
    /// <summary>Filled into a released buffer in Debug builds (PB4).</summary>
    internal const byte Poison = 0xDB;

    /// <summary>PB2: the longest overflow run (in pages) whose buffer comes back.</summary>
    public const int MaxPooledRunPages = 8;

    private readonly Queue<(long Generation, byte[] Buffer)> _retired = new(); // oldest generation first; under the page table's lock
    private long _retiredPages; // under the page table's lock
    private readonly Stack<byte[]>[] _free = [.. Enumerable.Range(0, MaxPooledRunPages + 1).Select(_ => new Stack<byte[]>())]; // by page count; under _freeLock
    private long _freePages; // under _freeLock
    private readonly object _freeLock = new();
    private long _reused;

    public PageBufferPool(int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(capacity);
        Capacity = capacity;
    }

    /// <summary>The most buffers kept waiting for their generation, and the most kept free (PB3).</summary>
    public int Capacity { get; }

    /// <summary>Buffers waiting for their generation to end (tests).</summary>
    internal int RetiredCount => _retired.Count;

    /// <summary>Buffers ready to be handed out, of every size (tests).</summary>
    internal int FreeCount
    {
        get
        {
            lock (_freeLock)
            {
                return _free.Sum(f => f.Count);
            }
        }
    }

    /// <summary>PB2: whether a buffer of <paramref name="length"/> bytes comes back here.</summary>
    internal static bool IsPooled(int length) =>
        length % Constants.PageSize == 0 && length is > 0 and <= MaxPooledRunPages * Constants.PageSize;

    /// <summary>Buffers handed out again instead of allocated (tests and statistics).</summary>
    internal long Reused => Volatile.Read(ref _reused);

    /// <summary>An 8 KiB buffer on the pinned object heap, recycled when one is free. Its bytes are undefined.</summary>
    public byte[] Rent() => Rent(1);

    /// <summary>A buffer of <paramref name="pageCount"/> pages on the pinned object heap, recycled when one of that size is free (PB2). Its bytes are undefined.</summary>
    public byte[] Rent(int pageCount)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(pageCount, 1);
        lock (_freeLock)
        {
            if (pageCount <= MaxPooledRunPages && _free[pageCount].TryPop(out var buffer))
            {
                _freePages -= pageCount;
                _reused++;
                NoteHandedOut(buffer, recycled: true); // PB5
                return buffer;
            }
        }

        // Pinned: versions live in the page table until the data file has them (seconds under
        // load); on the ordinary heap each was copied by promotion and set off gen-0 collections.
        var allocated = GC.AllocateUninitializedArray<byte>(checked(pageCount * Constants.PageSize), pinned: true);
        NoteHandedOut(allocated, recycled: false); // PB5
        return allocated;
    }

    /// <summary>
    /// PB1: <paramref name="buffer"/> left the page table; transactions of generations up to
    /// <paramref name="generation"/> may still read it. A run longer than MaxPooledRunPages is left
    /// to the garbage collector (PB2). Under the page table's lock.
    /// </summary>
    public void Retire(byte[] buffer, long generation)
    {
        if (!IsPooled(buffer.Length))
        {
            return;
        }

        NoteRetired(buffer); // PB5
        if (Capacity == 0)
        {
            NoteLeft(buffer, Place.Dropped);
            return;
        }

        System.Diagnostics.Debug.Assert(_retired.Count == 0 || _retired.Peek().Generation <= generation, "PB1: generations only grow");
        _retired.Enqueue((generation, buffer));
        _retiredPages += buffer.Length / Constants.PageSize;
        while (_retiredPages > Capacity)
        {
            var dropped = _retired.Dequeue().Buffer;
            _retiredPages -= dropped.Length / Constants.PageSize;
            NoteLeft(dropped, Place.Dropped); // PB3: dropped, not reused
        }
    }

    /// <summary>PB1: frees the retired buffers whose generation is older than every live transaction's. Under the page table's lock.</summary>
    public void ReleaseRetired(long oldestLiveGeneration)
    {
        lock (_freeLock) // once per pass, not per buffer: the writer's Rent waits on it
        {
            while (_retired.TryPeek(out var retired) && retired.Generation < oldestLiveGeneration)
            {
                _retired.Dequeue();
                var pages = retired.Buffer.Length / Constants.PageSize;
                _retiredPages -= pages;
#if DEBUG
                retired.Buffer.AsSpan().Fill(Poison); // PB4
#endif
                var kept = _freePages + pages <= Capacity;
                NoteLeft(retired.Buffer, kept ? Place.Free : Place.Dropped); // PB5
                if (kept)
                {
                    _free[pages].Push(retired.Buffer);
                    _freePages += pages;
                }
            }
        }
    }
}
