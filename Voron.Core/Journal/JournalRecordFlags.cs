namespace Voron.Journal;

/// <summary>Record flags (bytes 10..11 of the record header, see JournalRecord.cs).</summary>
[Flags]
internal enum JournalRecordFlags : ushort
{
    None = 0,

    /// <summary>The stored payload is one LZ4 block; decompressed it is UncompressedPayloadSize bytes.</summary>
    Lz4Compressed = 1,

    /// <summary>
    /// Written in the lazy durability mode: the record was not flushed before the transaction was
    /// acknowledged, so an intact lazy record after a broken one proves nothing (D4 ignores it).
    /// </summary>
    Lazy = 2,
}
