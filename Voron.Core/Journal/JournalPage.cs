namespace Voron.Journal;

/// <summary>
/// One page, or one overflow run of consecutive pages, that a transaction hands to
/// <see cref="JournalWriter.Append"/>: the full image of pages <see cref="PageNumber"/> ..
/// PageNumber + Image.Length / PageSize - 1. <see cref="Image"/> is read during the call only.
/// </summary>
internal readonly record struct JournalPage(long PageNumber, ReadOnlyMemory<byte> Image)
{
    /// <summary>How many pages the image spans.</summary>
    public int PageCount => Image.Length / Constants.PageSize;
}
