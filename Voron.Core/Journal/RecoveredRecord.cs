namespace Voron.Journal;

/// <summary>
/// One valid record found by <see cref="JournalReader.Recover"/>, handed to its <c>apply</c>
/// callback. <see cref="State"/> and the entries' bytes point into the reader's buffer, which the
/// next record overwrites: use or copy them during the callback, never keep them.
/// </summary>
internal sealed class RecoveredRecord
{
    internal RecoveredRecord(long transactionId, ReadOnlyMemory<byte> state, IReadOnlyList<RecoveredPage> pages, JournalPosition start, JournalPosition end)
    {
        TransactionId = transactionId;
        State = state;
        Pages = pages;
        Start = start;
        End = end;
    }

    public long TransactionId { get; }

    /// <summary>When the writer encoded the record (UTC Unix milliseconds; 0 = unknown: JournalRecord.cs, offset 120).</summary>
    public long CommitTime { get; init; }

    /// <summary>The 64-byte environment state the writer stored with the transaction.</summary>
    public ReadOnlyMemory<byte> State { get; }

    /// <summary>The page entries in the order they were written.</summary>
    public IReadOnlyList<RecoveredPage> Pages { get; }

    /// <summary>Where the record starts.</summary>
    public JournalPosition Start { get; }

    /// <summary>Where the record (with its padding) ends: where the next one starts in this file.</summary>
    public JournalPosition End { get; }
}
