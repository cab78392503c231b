using System.Buffers;
using Voron.Allocation;
using Voron.Header;
using Voron.Journal;

namespace Voron.Transactions;

/// <summary>
/// A write transaction ready to be journaled: its id, the state it produces, its pages (checksums
/// stamped, sorted) and the free-space digest after it. Immutable from here on — with async commit
/// the next transaction reads these pages (<see cref="Pages"/>) while this one is being written.
/// </summary>
internal sealed class PreparedCommit
{
    public PreparedCommit(long txId, EnvironmentState state, FreeSpaceSummary freeSpace, List<KeyValuePair<long, byte[]>> pages,
        Dictionary<long, byte[]> pagesByNumber, JournalPage[] journalPages, long[] freedPages, byte[]? diffArena = null, ulong[]? flushUnits = null,
        IReadOnlySet<long>? created = null)
    {
        Created = created;
        _diffArena = diffArena;
        FlushUnits = flushUnits;
        FreedPages = freedPages;
        TxId = txId;
        State = state;
        FreeSpace = freeSpace;
        Pages = pages;
        PagesByNumber = pagesByNumber;
        JournalPages = journalPages;
        foreach (var (_, bytes) in pages)
        {
            Bytes += bytes.Length;
        }
    }

    /// <summary>Arenas up to this size come from (and go back to) the shared array pool.</summary>
    private const int PooledArenaLimit = 8 << 20;

    private byte[]? _diffArena;

    public long TxId { get; }

    /// <summary>First pages of the pages and runs this transaction freed: tombstones in the page table (PT5).</summary>
    public long[] FreedPages { get; }

    public EnvironmentState State { get; }

    public FreeSpaceSummary FreeSpace { get; }

    /// <summary>The transaction's pages sorted by page number.</summary>
    public List<KeyValuePair<long, byte[]>> Pages { get; }

    /// <summary>The same pages by number, for a transaction that builds on this one before it is published.</summary>
    public IReadOnlyDictionary<long, byte[]> PagesByNumber { get; }

    /// <summary>
    /// FL10 (Flushing/FlushUnits.cs): for each of <see cref="Pages"/>, the 4 KiB units this
    /// commit changed; null when not known (every unit of every page).
    /// </summary>
    public ulong[]? FlushUnits { get; }

    /// <summary>What the journal stores for each page: a full image or a diff.</summary>
    public JournalPage[] JournalPages { get; }

    public long Bytes { get; }

    /// <summary>The pages this transaction created (allocated), of <see cref="Pages"/>: those it may write in place (IP1); null when not known.</summary>
    public IReadOnlySet<long>? Created { get; }

    /// <summary>IP4: the pages step 2 wrote in place (never published, never flushed); null when none.</summary>
    public HashSet<long>? InPlace { get; private set; }

    /// <summary>The bytes of <see cref="InPlace"/>.</summary>
    public long InPlaceBytes { get; private set; }

    /// <summary>Step 2 wrote <paramref name="pages"/> in place (IP4); called at most once, before the record is written.</summary>
    public void MarkInPlace(HashSet<long> pages, long bytes)
    {
        InPlace = pages;
        InPlaceBytes = bytes;
    }

    /// <summary>The pages the page table gets (PT2): all but those written in place (IP4).</summary>
    public IEnumerable<KeyValuePair<long, byte[]>> PublishedPages =>
        InPlace == null ? Pages : Pages.Where(p => !InPlace.Contains(p.Key));

    /// <summary>
    /// What the flusher queues (FL9): the published pages with their units (FL10) and the freed
    /// pages, and every run the record names, in-place ones included, for IP1.
    /// </summary>
    public UnflushedTransaction ForFlush(JournalPosition journalEnd)
    {
        if (InPlace == null)
        {
            // IP1: the record names the first Pages.Count of the keys. Freed pages are not among
            // them: the record does not write them, and the flusher skips their tombstones (PT5).
            var pageNumbers = new long[Pages.Count + FreedPages.Length];
            var singlePages = true;
            for (var i = 0; i < Pages.Count; i++)
            {
                pageNumbers[i] = Pages[i].Key;
                singlePages &= Pages[i].Value.Length == Constants.PageSize;
            }

            FreedPages.CopyTo(pageNumbers, Pages.Count);
            return new UnflushedTransaction(TxId, pageNumbers, Bytes, State, journalEnd, FlushUnits)
            {
                NamedSinglePages = singlePages ? Pages.Count : 0,
                Runs = !singlePages ? Runs() : Pages.Count == 0 ? [] : null,
            };
        }

        var keys = new List<long>(Pages.Count + FreedPages.Length);
        var units = FlushUnits == null ? null : new List<ulong>(Pages.Count);
        for (var i = 0; i < Pages.Count; i++)
        {
            if (!InPlace.Contains(Pages[i].Key))
            {
                keys.Add(Pages[i].Key);
                units?.Add(FlushUnits![i]);
            }
        }

        keys.AddRange(FreedPages);
        return new UnflushedTransaction(TxId, [.. keys], Bytes - InPlaceBytes, State, journalEnd, units?.ToArray()) { Runs = Runs() };
    }

    /// <summary>IP1: every run the record names, in-place ones included (not the freed pages: PT5).</summary>
    private PageRun[] Runs()
    {
        var runs = new PageRun[Pages.Count];
        for (var i = 0; i < Pages.Count; i++)
        {
            runs[i] = new PageRun(Pages[i].Key, Pages[i].Value.Length / Constants.PageSize);
        }

        return runs;
    }

    /// <summary>A buffer of at least <paramref name="size"/> bytes for the diffs of one commit.</summary>
    public static byte[] RentDiffArena(int size) =>
        size <= PooledArenaLimit ? ArrayPool<byte>.Shared.Rent(size) : GC.AllocateUninitializedArray<byte>(size);

    /// <summary>
    /// Called once the journal holds this commit (or will never hold it): the diffs in
    /// <see cref="JournalPages"/> are dead from here on and their arena goes back to the pool.
    /// </summary>
    public void ReleaseDiffArena()
    {
        var arena = Interlocked.Exchange(ref _diffArena, null);
        if (arena != null && arena.Length <= PooledArenaLimit)
        {
            ArrayPool<byte>.Shared.Return(arena);
        }
    }

    /// <summary>The committed state a transaction starting on top of this one begins from.</summary>
    public CommittedState AsBase() => new(TxId, State, FreeSpace, default);
}
