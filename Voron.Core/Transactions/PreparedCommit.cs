using Voron.Allocation;
using Voron.Files;
using Voron.Journal;

namespace Voron.Transactions;

/// <summary>
/// A write transaction ready to be journaled: its id, the state it produces, its pages (checksums
/// stamped, sorted) and the free-space digest after it. Immutable from here on — with async commit
/// the next transaction reads these pages (<see cref="Pages"/>) while this one is being written.
/// </summary>
internal sealed class PreparedCommit
{
    public PreparedCommit(long txId, EnvironmentState state, FreeSpaceSummary freeSpace, List<KeyValuePair<long, byte[]>> pages, Dictionary<long, byte[]> pagesByNumber)
    {
        TxId = txId;
        State = state;
        FreeSpace = freeSpace;
        Pages = pages;
        PagesByNumber = pagesByNumber;
        JournalPages = new JournalPage[pages.Count];
        for (var i = 0; i < pages.Count; i++)
        {
            JournalPages[i] = new JournalPage(pages[i].Key, pages[i].Value);
            Bytes += pages[i].Value.Length;
        }
    }

    public long TxId { get; }

    public EnvironmentState State { get; }

    public FreeSpaceSummary FreeSpace { get; }

    /// <summary>The transaction's pages sorted by page number.</summary>
    public List<KeyValuePair<long, byte[]>> Pages { get; }

    /// <summary>The same pages by number, for a transaction that builds on this one before it is published.</summary>
    public IReadOnlyDictionary<long, byte[]> PagesByNumber { get; }

    public JournalPage[] JournalPages { get; }

    public long Bytes { get; }

    /// <summary>The committed state a transaction starting on top of this one begins from.</summary>
    public CommittedState AsBase() => new(TxId, State, FreeSpace, default);
}
