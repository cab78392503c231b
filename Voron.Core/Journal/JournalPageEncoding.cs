namespace Voron.Journal;

/// <summary>How a page entry's bytes are stored (byte 16 of the entry header, see JournalRecord.cs).</summary>
internal enum JournalPageEncoding : byte
{
    /// <summary>The bytes are the whole image of the entry's pages.</summary>
    FullImage = 0,

    /// <summary>Reserved for the page-diff version: a patch against the page's previous version.
    /// This version never writes it and reports it as corruption when read.</summary>
    DiffAgainstPrevious = 1,

    /// <summary>Reserved for the page-diff version: a patch against a zeroed page. This version
    /// never writes it and reports it as corruption when read.</summary>
    DiffAgainstZeros = 2,
}
