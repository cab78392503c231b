namespace Voron.Journal;

/// <summary>
/// What <see cref="JournalReader.Recover"/> found: the last valid transaction, where the log ends
/// (where <see cref="JournalWriter"/> resumes, overwriting a discarded torn tail), and the journal
/// files from the start position's file through the end's file that exist.
/// </summary>
/// <param name="LastTransactionId">The last valid record's transaction, or expectedTxId - 1 when none was found.</param>
/// <param name="End">Where writing resumes: right after the last valid record (or the start when there
/// was none), or offset 0 of the next file when the discarded torn tail was the first record there (D3).</param>
/// <param name="FileNumbers">The journal files holding the recovered records and the end position, ascending.</param>
/// <param name="RecordCount">How many valid records were applied.</param>
internal sealed record JournalRecoveryResult(long LastTransactionId, JournalPosition End, IReadOnlyList<long> FileNumbers, int RecordCount)
{
    /// <summary>Whether every byte of the end's file from <see cref="End"/> on is zero (nothing to clear before writing resumes).</summary>
    public bool TailIsClean { get; init; }

    /// <summary>The last valid record's CommitTime (0 when none was found, or when it has none).</summary>
    public long LastCommitTime { get; init; }

    /// <summary>The transaction id the writer appends next.</summary>
    public long NextTransactionId => LastTransactionId + 1;
}
