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

    /// <summary>The largest value, in bytes: one overflow run addressed by a 32-bit size.</summary>
    public const int MaxValueSize = int.MaxValue - Paging.PageHeader.Size;

    /// <summary>The largest tree name, in UTF-8 bytes.</summary>
    public const int MaxTreeNameSize = 256;
}
