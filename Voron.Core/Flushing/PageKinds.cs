using Voron.Paging;

namespace Voron.Flushing;

/// <summary>A flush's written pages counted by the kind their page header names (FlushStatistics).</summary>
internal readonly record struct PageKinds(long Pages, long Leaves, long Branches, long Overflows, long FreeSpace)
{
    /// <summary>
    /// Counts <paramref name="images"/>. Called before the page table drops them: after that their
    /// buffers may be handed to other pages (Transactions/PageBufferPool.cs PB1).
    /// </summary>
    public static PageKinds Of(List<KeyValuePair<long, ReadOnlyMemory<byte>>> images)
    {
        long pageCount = 0, leaves = 0, branches = 0, overflows = 0, freeSpace = 0;
        foreach (var (_, image) in images)
        {
            var pages = image.Length / Constants.PageSize;
            pageCount += pages;
            switch (PageHeader.GetFlags(image.Span))
            {
                case PageFlags.Leaf:
                    leaves += pages;
                    break;
                case PageFlags.Branch:
                    branches += pages;
                    break;
                case PageFlags.Overflow:
                    overflows += pages;
                    break;
                case PageFlags.FreeSpace:
                    freeSpace += pages;
                    break;
            }
        }

        return new PageKinds(pageCount, leaves, branches, overflows, freeSpace);
    }
}
