using Voron.Paging;

namespace Voron.Trees;

internal sealed partial class BTree
{
    /// <summary>
    /// The integrity check: walks the whole tree, checks B1-B8 on every page and BT1-BT7, and
    /// reports every page the tree owns (page number, page count; overflow runs as one report).
    /// Throws <see cref="CorruptionException"/> for a page that breaks a rule and
    /// <see cref="InvalidOperationException"/> when <see cref="State"/> disagrees with the pages.
    /// Expensive (allocates, reads every page): for tests and diagnostics.
    /// </summary>
    public void Verify(Action<long, int> ownedPages)
    {
        ArgumentNullException.ThrowIfNull(ownedPages);
        if (_state.RootPage == 0)
        {
            if (_state != default)
            {
                throw new InvalidOperationException($"BT5: an empty tree must have an all-zero state, found {_state}");
            }

            return;
        }

        var walk = new VerifyWalk(ownedPages);
        VerifyPage(walk, _state.RootPage, 0, [], hasLow: false, [], hasHigh: false);
        var found = _state with
        {
            EntryCount = walk.Entries,
            LeafPages = walk.LeafPages,
            BranchPages = walk.BranchPages,
            OverflowPages = walk.OverflowPages,
        };
        if (found != _state)
        {
            throw new InvalidOperationException($"BT5: the state says {_state} but the pages hold {found}");
        }
    }

    /// <summary>
    /// The integrity walk of <see cref="Verify"/> that also measures how full the pages are
    /// (<see cref="TreeOccupancy"/>). As expensive as Verify: for tests, diagnostics and experiments.
    /// </summary>
    public TreeOccupancy MeasureOccupancy()
    {
        long leafPages = 0, branchPages = 0, runs = 0, overflowPages = 0, leafUsed = 0, branchUsed = 0, overflowValues = 0;
        var histogram = new long[TreeOccupancy.HistogramBuckets];
        Verify((pageNumber, pageCount) =>
        {
            var page = _pages.GetPage(pageNumber);
            switch (PageHeader.GetFlags(page))
            {
                case PageFlags.Leaf:
                    var used = UsedBytes(page, pageNumber);
                    leafPages++;
                    leafUsed += used;
                    histogram[TreeOccupancy.Bucket(used)]++;
                    break;
                case PageFlags.Branch:
                    branchPages++;
                    branchUsed += UsedBytes(page, pageNumber);
                    break;
                case PageFlags.Overflow:
                    runs++;
                    overflowPages += pageCount;
                    overflowValues += PageHeader.GetOverflowSize(page);
                    break;
            }
        });

        return new TreeOccupancy(leafPages, branchPages, runs, overflowPages, leafUsed, branchUsed, overflowValues, histogram);

        int UsedBytes(ReadOnlySpan<byte> page, long pageNumber) => TreePage.Open(page, pageNumber, _file).UsedBytes;
    }

    /// <summary>Checks one page and its subtree; every key must lie in [low, high) (BT3).</summary>
    private void VerifyPage(VerifyWalk walk, long pageNumber, int level, ReadOnlySpan<byte> low, bool hasLow, ReadOnlySpan<byte> high, bool hasHigh)
    {
        var page = OpenPage(pageNumber, level);
        if (!walk.Seen.Add(pageNumber))
        {
            page.ThrowCorrupt($"rule BT6: page {pageNumber} is reachable twice");
        }

        walk.OwnedPages(pageNumber, 1);
        VerifyNodeArea(page);
        if (!page.IsLeaf && page.Count < 2)
        {
            page.ThrowCorrupt($"rule BT4: a branch with {page.Count} child");
        }

        for (var i = 0; i < page.Count; i++)
        {
            var key = page.GetKey(i);
            if (!page.IsLeaf && i == 0)
            {
                if (key.Length != 0)
                {
                    page.ThrowCorrupt("rule B5: the first node of a branch has a key");
                }
            }
            else
            {
                if (key.Length == 0)
                {
                    page.ThrowCorrupt($"rule B5: node {i} has an empty key");
                }

                if (i > (page.IsLeaf ? 0 : 1) && page.GetKey(i - 1).SequenceCompareTo(key) >= 0)
                {
                    page.ThrowCorrupt($"rule B7: key {i} is not greater than key {i - 1}");
                }

                if ((hasLow && key.SequenceCompareTo(low) < 0) || (hasHigh && key.SequenceCompareTo(high) >= 0))
                {
                    page.ThrowCorrupt($"rule BT3: key {i} lies outside the range its parent gives the page");
                }
            }

            if (page.IsLeaf)
            {
                VerifyValue(walk, page, i, key.Length);
            }
            else
            {
                var childLow = i == 0 ? low : key;
                var childHasLow = i != 0 || hasLow;
                var last = i == page.Count - 1;
                var childHigh = last ? high : page.GetKey(i + 1);
                VerifyPage(walk, page.GetChild(i), level + 1, childLow, childHasLow, childHigh, !last || hasHigh);
            }
        }

        if (page.IsLeaf)
        {
            walk.LeafPages++;
            walk.Entries += page.Count;
        }
        else
        {
            walk.BranchPages++;
        }
    }

    /// <summary>B8: the node bodies lie in Upper..PageSize without overlapping, and the bytes between them are the header's Holes.</summary>
    private static void VerifyNodeArea(TreePage page)
    {
        var extents = new (int Offset, int Size)[page.Count];
        for (var i = 0; i < page.Count; i++)
        {
            extents[i] = (page.GetNodeOffset(i), page.GetNode(i).Length);
        }

        Array.Sort(extents);
        var end = page.Upper;
        var holes = 0;
        foreach (var (offset, size) in extents)
        {
            if (offset < end)
            {
                page.ThrowCorrupt($"rule B8: a node starts at {offset}, inside the one before it (which ends at {end})");
            }

            holes += offset - end;
            end = offset + size;
        }

        holes += Constants.PageSize - end;
        if (holes != page.Holes)
        {
            page.ThrowCorrupt($"rule B8: {holes} bytes of the node area hold no node, the header's Holes says {page.Holes}");
        }
    }

    /// <summary>B6 and BT7: a run only for a value too big for an older build's inline limit; an overflow run is intact and owned once.</summary>
    private void VerifyValue(VerifyWalk walk, TreePage leaf, int index, int keySize)
    {
        var field = leaf.GetValueField(index, out var flags, out var valueSize);
        // Inline nodes were bounded by GetValueField (B2); a run must hold a value too big for the
        // older, quarter-page limit (B6): a store an older build wrote keeps such runs.
        if (flags == TreeNodeFlags.Overflow && TreePage.LeafNodeHeaderSize + keySize + (long)valueSize <= TreePage.MinOverflowNodeSize)
        {
            leaf.ThrowCorrupt($"rule BT7: a {valueSize}-byte value with a {keySize}-byte key is stored {flags}");
        }

        if (flags == TreeNodeFlags.Overflow)
        {
            var runPage = leaf.GetRunPage(field);
            ReadRun(runPage, valueSize);
            if (!walk.Seen.Add(runPage))
            {
                leaf.ThrowCorrupt($"rule BT6: overflow run {runPage} of node {index} is reachable twice");
            }

            var pageCount = PageHeader.OverflowPageCount(valueSize);
            walk.OwnedPages(runPage, pageCount);
            walk.OverflowPages += pageCount;
        }
    }

    /// <summary>What a Verify walk has seen so far.</summary>
    private sealed class VerifyWalk(Action<long, int> ownedPages)
    {
        public Action<long, int> OwnedPages { get; } = ownedPages;

        public HashSet<long> Seen { get; } = [];

        public long Entries { get; set; }

        public long LeafPages { get; set; }

        public long BranchPages { get; set; }

        public long OverflowPages { get; set; }
    }
}
