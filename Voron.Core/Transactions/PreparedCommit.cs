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
        Dictionary<long, byte[]> pagesByNumber, JournalPage[] journalPages, long[] freedPages, byte[]? diffArena = null, ulong[]? flushUnits = null)
    {
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
