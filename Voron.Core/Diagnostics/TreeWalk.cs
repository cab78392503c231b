using Voron.Paging;
using Voron.Trees;

namespace Voron.Diagnostics;

/// <summary>
/// Walks every page of one tree (not its overflow runs: their sizes are in the leaf nodes) and
/// counts pages by kind, entries and the bytes the slots and nodes use (ST3).
/// </summary>
internal static class TreeWalk
{
    /// <param name="name">The tree's name in the statistics.</param>
    /// <param name="tree">The tree, opened by the statistics' read transaction.</param>
    /// <param name="file">The data file, for a corruption error.</param>
    /// <param name="allocatedPages">The snapshot's allocation high-water mark: a walk that visits more pages is corrupt.</param>
    /// <param name="pageFile">Whether the tree is a page file's map: its 8-byte keys are blocks, each one raw page (PageFiles/PageFileFormat.cs PF2).</param>
    public static TreeStatistics Walk(string name, BTree tree, string file, long allocatedPages, bool pageFile)
    {
        var totals = new Totals(tree, file, allocatedPages, pageFile);
        var state = tree.State;
        if (state.RootPage != 0)
        {
            Visit(totals, state.RootPage, 0);
        }

        return new TreeStatistics(name, totals.Entries, state.Depth, totals.LeafPages, totals.BranchPages, totals.OverflowPages, totals.RawPages,
            Fill(totals.LeafBytes, totals.LeafPages), Fill(totals.BranchBytes, totals.BranchPages));
    }

    /// <summary>Used bytes ÷ the slots-and-nodes capacity of the pages (everything after the page header).</summary>
    private static double Fill(long usedBytes, long pages) => pages == 0 ? 0 : usedBytes / ((double)pages * TreePage.Capacity);

    /// <summary>
    /// One page and its subtree. The recursion is as deep as the tree: OpenPage checks that a
    /// page's kind matches its level (BT2), so a child link can never lead deeper than State.Depth.
    /// </summary>
    private static void Visit(Totals totals, long pageNumber, int level)
    {
        if (++totals.Visited > totals.AllocatedPages)
        {
            throw new CorruptionException(totals.File, pageNumber * Constants.PageSize,
                $"rule ST3: the walk of a tree reached more pages than the {totals.AllocatedPages} allocated (a page is reachable twice)");
        }

        var page = totals.Tree.OpenPage(pageNumber, level);
        if (!page.IsLeaf)
        {
            totals.BranchPages++;
            totals.BranchBytes += page.UsedBytes;
            for (var i = 0; i < page.Count; i++)
            {
                Visit(totals, page.GetChild(i), level + 1);
            }

            return;
        }

        totals.LeafPages++;
        totals.LeafBytes += page.UsedBytes;
        totals.Entries += page.Count;
        for (var i = 0; i < page.Count; i++)
        {
            _ = page.GetValueField(i, out var flags, out var valueSize);
            if (flags == TreeNodeFlags.Overflow)
            {
                totals.OverflowPages += PageHeader.OverflowPageCount(valueSize);
            }

            if (totals.PageFile && page.GetKey(i).Length == PageFiles.PageFileFormat.BlockKeySize)
            {
                totals.RawPages++;
            }
        }
    }

    /// <summary>What a walk has counted so far.</summary>
    private sealed class Totals(BTree tree, string file, long allocatedPages, bool pageFile)
    {
        public BTree Tree { get; } = tree;

        public string File { get; } = file;

        public long AllocatedPages { get; } = allocatedPages;

        public bool PageFile { get; } = pageFile;

        public long Visited { get; set; }

        public long Entries { get; set; }

        public long LeafPages { get; set; }

        public long BranchPages { get; set; }

        public long OverflowPages { get; set; }

        public long RawPages { get; set; }

        public long LeafBytes { get; set; }

        public long BranchBytes { get; set; }
    }
}
