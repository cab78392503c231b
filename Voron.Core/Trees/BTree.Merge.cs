using System.Diagnostics;

namespace Voron.Trees;

internal sealed partial class BTree
{
    /// <summary>
    /// After a delete from the recorded path's page at <paramref name="level"/>: merges or
    /// rebalances underfull pages with a sibling, bottom-up (BT8), and shrinks the root (BT4).
    /// </summary>
    private void Rebalance(int level)
    {
        for (; level > 0; level--)
        {
            var pageNumber = _pathPages[level];
            var page = OpenPage(pageNumber, level, allowEmpty: true);
            if (page.UsedBytes >= TreePage.MinFillBytes && (page.IsLeaf || page.Count >= 2))
            {
                return;
            }

            var parentNumber = _pathPages[level - 1];
            var parent = OpenPage(parentNumber, level - 1);
            if (parent.Count < 2)
            {
                // This code never leaves a branch with one child (BT4), so the page is damaged;
                // going on would carry an emptied leaf into a merged parent.
                parent.ThrowCorrupt("rule BT4: a branch with a single child");
            }

            var index = _pathIndexes[level - 1];
            var leftIndex = index > 0 ? index - 1 : index;
            if (!MergeOrShare(level, parent, leftIndex))
            {
                return;
            }
        }

        ShrinkRoot();
    }

    /// <summary>
    /// Merges children <paramref name="leftIndex"/> and <paramref name="leftIndex"/> + 1 of
    /// <paramref name="parent"/> (at <paramref name="level"/> - 1) into the left one when they fit
    /// one page, and returns true (the parent lost a node); else shares their nodes evenly, replaces
    /// the separator, and returns false (the parent did not shrink, or was split).
    /// </summary>
    private bool MergeOrShare(int level, TreePage parent, int leftIndex)
    {
        var parentNumber = parent.PageNumber;
        var leftNumber = parent.GetChild(leftIndex);
        var rightNumber = parent.GetChild(leftIndex + 1);
        var separatorNodeSize = parent.GetNode(leftIndex + 1).Length;

        var scratch = Scratch;
        var left = OpenPage(leftNumber, level, allowEmpty: true);
        scratch.Reset(left.IsLeaf);
        scratch.AddNodes(left);
        var rightStart = scratch.Count;
        var right = OpenPage(rightNumber, level, allowEmpty: true);
        scratch.AddNodes(right);
        if (!left.IsLeaf)
        {
            // The right page's first child is no longer first: it takes the parent's separator
            // as its key (BT3).
            var separator = parent.GetKey(leftIndex + 1);
            var node = scratch.Replace(rightStart, TreePageEditor.BranchNodeSize(separator.Length));
            TreePageEditor.WriteBranchNode(node, separator, right.GetChild(0));
        }

        // BT9: the parent, left and right views are not used past this point.
        if (scratch.TotalBytes <= TreePage.Capacity)
        {
            scratch.WriteTo(_pages.ModifyPage(leftNumber), 0, scratch.Count);
            _pages.FreePages(rightNumber, 1);
            if (scratch.IsLeaf)
            {
                _state.LeafPages--;
            }
            else
            {
                _state.BranchPages--;
            }

            TreePageEditor.RemoveNode(_pages.ModifyPage(parentNumber), leftIndex + 1, separatorNodeSize, _file);
            return true;
        }

        var cut = scratch.ChooseSplit(-1);
        scratch.WriteTo(_pages.ModifyPage(leftNumber), 0, cut);
        scratch.WriteTo(_pages.ModifyPage(rightNumber), cut, scratch.Count);
        var newSeparator = scratch.IsLeaf ? ShortestSeparator(scratch.Key(cut - 1), scratch.Key(cut)) : CopySeparator(scratch.Key(cut));

        // Replace the separator: remove it, then insert the new one after the left child, which
        // splits the parent if the new key is longer and does not fit.
        TreePageEditor.RemoveNode(_pages.ModifyPage(parentNumber), leftIndex + 1, separatorNodeSize, _file);
        _pathIndexes[level - 1] = leftIndex;
        InsertSeparator(level - 1, newSeparator, rightNumber);
        return false;
    }

    /// <summary>Frees an emptied root leaf, and replaces a root branch with a single child by that child (BT2, BT4).</summary>
    private void ShrinkRoot()
    {
        while (true)
        {
            var root = OpenPage(_state.RootPage, 0, allowEmpty: true);
            if (root.IsLeaf)
            {
                if (root.Count == 0)
                {
                    _pages.FreePages(_state.RootPage, 1);
                    Debug.Assert(_state.EntryCount == 0 && _state.LeafPages == 1 && _state.BranchPages == 0 && _state.OverflowPages == 0,
                        "BT5: an empty tree owns only its root leaf");
                    _state = default;
                }

                return;
            }

            if (root.Count > 1)
            {
                return;
            }

            var child = root.GetChild(0);
            _pages.FreePages(_state.RootPage, 1);
            _state.RootPage = child;
            _state.Depth--;
            _state.BranchPages--;
        }
    }
}
