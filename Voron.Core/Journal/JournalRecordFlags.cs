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
    /// acknowledged. Informational since format 2: recovery reads a record's DurableThrough (J11),
    /// not this flag, to tell whether it proves an earlier record durable (D5).
    /// </summary>
    Lazy = 2,

    /// <summary>
    /// The stored payload is sealed: nonce (12) | ciphertext | tag (16), opened with the store's
    /// journal subkey (Journal/JournalSealing.cs, SL8) before it is decompressed.
    /// </summary>
    Sealed = 4,
}
