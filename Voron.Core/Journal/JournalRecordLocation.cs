namespace Voron.Journal;

/// <summary>Where <see cref="JournalWriter.Append(long, ReadOnlySpan{byte}, IReadOnlyList{JournalPage})"/> put a record: it occupies
/// [<see cref="Start"/>.Offset, <see cref="End"/>.Offset) of one journal file (J4).</summary>
internal readonly record struct JournalRecordLocation(JournalPosition Start, JournalPosition End)
{
    /// <summary>The record's CommitTime as written (UTC Unix milliseconds; 0 = unknown: JournalRecord.cs, offset 120).</summary>
    public long CommitTime { get; init; }

    /// <summary>The record's size on disk, padding included.</summary>
    public long Length => End.Offset - Start.Offset;
}
