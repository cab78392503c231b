namespace Voron;

/// <summary>Fixed sizes and limits of the storage format.</summary>
public static class Constants
{
    /// <summary>Every page of the data file is 8 KiB.</summary>
    public const int PageSize = 8192;

    /// <summary>
    /// The largest key a tree accepts, in bytes. A branch page must hold at least a few keys of
    /// this size (B2 in Trees/TreePage.cs); longer keys are an <see cref="ArgumentException"/>.
    /// </summary>
    public const int MaxKeySize = 1024;

    /// <summary>
    /// The largest value, in bytes (2,000,000,000): one overflow run, addressed by a 32-bit size,
    /// that a single journal record can hold with room to spare for the transaction's other pages
    /// (a record is at most ~2 GiB, 508 of each 512 bytes payload: Journal/JournalRecord.cs).
    /// </summary>
    public const int MaxValueSize = 2_000_000_000;

    /// <summary>The largest tree name, in UTF-8 bytes.</summary>
    public const int MaxTreeNameSize = 256;
}
