namespace Voron.Journal;

/// <summary>
/// A place in the journal: a byte offset in the journal file numbered <see cref="FileNumber"/>.
/// Record positions are multiples of <see cref="JournalRecord.Alignment"/>. Positions order by
/// file, then offset, which is journal (and transaction) order (J1).
/// </summary>
internal readonly record struct JournalPosition(long FileNumber, long Offset) : IComparable<JournalPosition>
{
    public int CompareTo(JournalPosition other) =>
        FileNumber != other.FileNumber ? FileNumber.CompareTo(other.FileNumber) : Offset.CompareTo(other.Offset);

    public static bool operator <(JournalPosition left, JournalPosition right) => left.CompareTo(right) < 0;

    public static bool operator >(JournalPosition left, JournalPosition right) => left.CompareTo(right) > 0;

    public static bool operator <=(JournalPosition left, JournalPosition right) => left.CompareTo(right) <= 0;

    public static bool operator >=(JournalPosition left, JournalPosition right) => left.CompareTo(right) >= 0;

    public override string ToString() => $"journal {FileNumber} at offset {Offset}";
}
