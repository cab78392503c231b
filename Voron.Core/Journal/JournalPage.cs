namespace Voron.Journal;

/// <summary>
/// One page, or one overflow run of consecutive pages, that a transaction hands to
/// <see cref="JournalWriter.Append(long, ReadOnlySpan{byte}, IReadOnlyList{JournalPage})"/>: with <see cref="JournalPageEncoding.FullImage"/> the full
/// image of pages <see cref="PageNumber"/> .. PageNumber + Image.Length / PageSize - 1; with a
/// diff encoding, <see cref="Image"/> holds the diff (Journal/Diff/PageDiff.cs) of a page or run
/// of <see cref="DiffPageCount"/> pages. <see cref="Image"/> is read during the call only.
/// </summary>
internal readonly record struct JournalPage(long PageNumber, ReadOnlyMemory<byte> Image,
    JournalPageEncoding Encoding = JournalPageEncoding.FullImage, int DiffPageCount = 0)
{
    /// <summary>How many pages the entry spans.</summary>
    public int PageCount => Encoding == JournalPageEncoding.FullImage ? Image.Length / Constants.PageSize : DiffPageCount;
}
