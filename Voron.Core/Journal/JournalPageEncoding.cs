namespace Voron.Journal;

/// <summary>How a page entry's bytes are stored (byte 16 of the entry header, see JournalRecord.cs).</summary>
internal enum JournalPageEncoding : byte
{
    /// <summary>The bytes are the whole image of the entry's pages.</summary>
    FullImage = 0,

    /// <summary>A patch (Journal/Diff/PageDiff.cs) against the page's previous committed version.</summary>
    DiffAgainstPrevious = 1,

    /// <summary>A patch against a zeroed page: a page the transaction created.</summary>
    DiffAgainstZeros = 2,

    /// <summary>
    /// Format 3: the entry's pages were written in place in the data file, and made durable there,
    /// before the record (Transactions/InPlacePages.cs, IP1–IP7); the entry's 4 bytes are the
    /// CRC32C of their bytes, which recovery checks.
    /// </summary>
    InDataFile = 3,
}
