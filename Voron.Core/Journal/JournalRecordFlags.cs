namespace Voron.Journal;

/// <summary>Record flags (bytes 10..11 of the record header, see JournalRecord.cs).</summary>
[Flags]
internal enum JournalRecordFlags : ushort
{
    None = 0,

    /// <summary>Reserved for the compression version: the stored payload is LZ4-compressed.
    /// This version never sets it and reports a record carrying it as corruption.</summary>
    Lz4Compressed = 1,
}
