using System.Diagnostics;
using Voron.Paging;

namespace Voron.Trees;

internal sealed partial class BTree
{
    /// <summary>
    /// Splits the recorded leaf, which has no room for the new node, into itself and a new right
    /// sibling, inserting the node on the way, then adds the separator to the parent.
    /// </summary>
    /// <remarks><paramref name="ascending"/>: the new key follows this tree's previous new key in this leaf (BT11).</remarks>
    private void SplitLeaf(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, long runPage, int nodeSize, bool ascending)
    {
        var level = _state.Depth - 1;
        var leftNumber = _pathPages[level];
        var index = _pathIndexes[level];
        var scratch = Scratch;
        scratch.Reset(isLeaf: true);
        var leaf = TreePage.Open(_pages.ModifyPage(leftNumber), leftNumber, _file, allowEmpty: true);
        var oldCount = leaf.Count;
        var appending = index == oldCount && IsOnRightEdge(level);
        scratch.AddNodes(leaf);
        TreePageEditor.WriteLeafNode(scratch.Add(index, nodeSize), key, value, runPage);

        // BT11: an append, or an ascending run's next key at the page's end, starts a page of its
        // own; an ascending run's key with nodes after it stays last on the left page, where the
        // run's next keys go; anything else cuts evenly (ChooseSplit falls back to that too).
        var preferred = appending || (ascending && index == oldCount) ? scratch.Count - 1 : ascending ? index + 1 : -1;
        var cut = scratch.ChooseSplit(preferred);

        // BT9: allocate first, then fetch the left page writable again, so no span is stale.
        var right = _pages.AllocatePages(1, out var rightNumber);
        scratch.WriteTo(right, cut, scratch.Count);
        KeepOnLeft(_pages.ModifyPage(leftNumber), oldCount, index, cut);
        _state.LeafPages++;
        (_lastInsertPage, _lastInsertIndex) = index < cut ? (leftNumber, index) : (rightNumber, index - cut);

        var separator = ShortestSeparator(scratch.Key(cut - 1), scratch.Key(cut));
        InsertSeparator(level - 1, separator, rightNumber);
    }

    /// <summary>
    /// BT11: an ascending run's next key past the end of a full leaf goes to the start of the
    /// leaf's right sibling (under the same parent) when it fits there, and the separator moves
    /// down to it; the run then goes on filling that sibling instead of leaving a page that holds
    /// the run's last few keys. Returns false (nothing changed) when there is no such sibling or
    /// no room in it.
    /// </summary>
    private bool TrySpillToRightSibling(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, long runPage, int nodeSize)
    {
        if (!TryFindRightSibling(out var level, out var parentNumber, out var parentIndex, out var rightNumber, out var separatorNodeSize))
        {
            return false;
        }

        if (TreePage.Capacity - OpenPage(rightNumber, level).UsedBytes < nodeSize + TreePage.SlotSize)
        {
            return false;
        }

        var left = OpenPage(_pathPages[level], level);
        var separator = ShortestSeparator(left.GetKey(left.Count - 1), key); // > the left page's keys, <= key

        // BT9: the views above are not used past this point.
        TreePageEditor.WriteLeafNode(TreePageEditor.InsertNode(_pages.ModifyPage(rightNumber), 0, nodeSize, _file), key, value, runPage);
        TreePageEditor.RemoveNode(_pages.ModifyPage(parentNumber), parentIndex + 1, separatorNodeSize, _file);
        InsertSeparator(level - 1, separator, rightNumber);
        (_lastInsertPage, _lastInsertIndex) = (rightNumber, 0);
        return true;
    }

    /// <summary>
    /// The recorded leaf's right sibling under the same parent (BT11, BT12): the leaf's level, the
    /// parent's page and the leaf's index in it, the sibling's page and the size of its separator
    /// node in the parent. False when the leaf is the root or its parent's last child.
    /// </summary>
    private bool TryFindRightSibling(out int level, out long parentNumber, out int parentIndex, out long rightNumber, out int separatorNodeSize)
    {
        level = _state.Depth - 1;
        (parentNumber, parentIndex, rightNumber, separatorNodeSize) = (0, 0, 0, 0);
        if (level == 0)
        {
            return false;
        }

        parentNumber = _pathPages[level - 1];
        parentIndex = _pathIndexes[level - 1];
        var parent = OpenPage(parentNumber, level - 1);
        if (parentIndex + 1 >= parent.Count)
        {
            return false;
        }

        rightNumber = parent.GetChild(parentIndex + 1);
        separatorNodeSize = parent.GetNode(parentIndex + 1).Length;
        return true;
    }

    /// <summary>BT12: a pair of leaves shares when the two and the new node take at most 90% of two pages.</summary>
    private const int ShareLimitBytes = TreePage.Capacity * 2 * 9 / 10;

    /// <summary>
    /// BT12: a full leaf whose right sibling (under the same parent) leaves the pair with room —
    /// both pages and the new node at most <see cref="ShareLimitBytes"/> — shares its nodes evenly
    /// with that sibling instead of splitting, and the separator is replaced, but only when this
    /// transaction already held writable copies of both pages before this Put
    /// (<paramref name="leafWasWritable"/>, <see cref="IPageAccess.HoldsWritableCopy"/>). Returns
    /// false (nothing changed) when there is no such sibling, either page was clean, the pair is
    /// too full, or no cut leaves both parts within a page.
    /// </summary>
    /// <remarks>
    /// A share changes the moved bodies on the sibling and both slot arrays. On pages the
    /// transaction had not touched that turns a small diff for one insert into two larger ones:
    /// in small random transactions it costs more journal bytes than the few points of leaf fill
    /// it gains (docs/results/2026-12-06-code-comment-measurements.md). Pages already changed in
    /// the transaction (many inserts into them in a large load, or created by it) are journaled
    /// as large diffs or whole anyway, so there the share is nearly free and keeps its fill gain.
    /// </remarks>
    private bool TryShareWithRightSibling(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, long runPage, int nodeSize, int index, bool leafWasWritable)
    {
        if (!TryFindRightSibling(out var level, out var parentNumber, out var parentIndex, out var rightNumber, out var separatorNodeSize))
        {
            return false;
        }

        // BT12: only where the transaction already holds both pages, so the share adds little journal.
        if (!leafWasWritable || !_pages.HoldsWritableCopy(rightNumber))
        {
            return false;
        }

        var leftNumber = _pathPages[level];
        var left = OpenPage(leftNumber, level, allowEmpty: true);
        var right = OpenPage(rightNumber, level);
        if (left.UsedBytes + right.UsedBytes + nodeSize + TreePage.SlotSize > ShareLimitBytes)
        {
            return false;
        }

        var scratch = Scratch;
        scratch.Reset(isLeaf: true);
        var leftCount = left.Count;
        scratch.AddNodes(left);
        TreePageEditor.WriteLeafNode(scratch.Add(index, nodeSize), key, value, runPage);
        scratch.AddNodes(right);
        var cut = scratch.FindSplit(-1);
        if (cut < 0 || cut > leftCount)
        {
            // Past one and a half pages a two-way cut is likely, not certain. The leaf and the new
            // node do not fit one page (that is why it shares), so every cut keeps fewer than
            // them on the left: the left page gives, the right page takes.
            return false;
        }

        // BT9: the views above are not used past this point. The nodes that move go to the head
        // of the right page one by one, and leave holes on the left: both pages' diffs are the
        // moved bodies, the slot arrays and the headers, not two rewritten pages.
        var rightPage = _pages.ModifyPage(rightNumber);
        KeepOnLeft(_pages.ModifyPage(leftNumber), leftCount, index, cut);
        for (var i = cut; i <= leftCount; i++)
        {
            var node = scratch.Node(i);
            node.CopyTo(TreePageEditor.InsertNode(rightPage, i - cut, node.Length, _file));
        }

        var separator = ShortestSeparator(scratch.Key(cut - 1), scratch.Key(cut));
        TreePageEditor.RemoveNode(_pages.ModifyPage(parentNumber), parentIndex + 1, separatorNodeSize, _file);
        InsertSeparator(level - 1, separator, rightNumber);
        (_lastInsertPage, _lastInsertIndex) = index < cut ? (leftNumber, index) : (rightNumber, index - cut);
        return true;
    }

    /// <summary>
    /// Inserts the separator <paramref name="key"/> for <paramref name="child"/> (a new right
    /// sibling of the recorded path's page at <paramref name="level"/> + 1) into the branch at
    /// <paramref name="level"/>, splitting branches up to a new root as needed.
    /// </summary>
    /// <remarks><paramref name="key"/> may live in the separator buffer, which a split reuses once the key is copied.</remarks>
    private void InsertSeparator(int level, ReadOnlySpan<byte> key, long child)
    {
        for (; level >= 0; level--)
        {
            var pageNumber = _pathPages[level];
            var index = _pathIndexes[level] + 1;
            var nodeSize = TreePageEditor.BranchNodeSize(key.Length);
            var page = _pages.ModifyPage(pageNumber);
            if (TreePageEditor.Fits(page, nodeSize))
            {
                TreePageEditor.WriteBranchNode(TreePageEditor.InsertNode(page, index, nodeSize, _file), key, child);
                return;
            }

            var scratch = Scratch;
            scratch.Reset(isLeaf: false);
            var branch = TreePage.Open(page, pageNumber, _file);
            var appending = index == branch.Count && IsOnRightEdge(level);
            scratch.AddNodes(branch);
            TreePageEditor.WriteBranchNode(scratch.Add(index, nodeSize), key, child);

            // Appending keeps the last old child with the new one: a branch needs two children (BT4).
            var cut = scratch.ChooseSplit(appending ? scratch.Count - 2 : -1);
            child = WriteSplit(pageNumber, cut);
            _state.BranchPages++;
            key = CopySeparator(scratch.Key(cut));
        }

        // The root split: a new root above the old one and its new sibling.
        var root = _pages.AllocatePages(1, out var rootNumber);
        TreePageEditor.Initialize(root, PageFlags.Branch);
        TreePageEditor.AppendBranchNode(root, [], _state.RootPage);
        TreePageEditor.AppendBranchNode(root, key, child);
        _state.RootPage = rootNumber;
        _state.Depth++;
        _state.BranchPages++;
    }

    /// <summary>
    /// After a leaf split or share cut the scratch (the leaf's <paramref name="oldCount"/> nodes
    /// with the new node at <paramref name="index"/>) at <paramref name="cut"/>: removes from the
    /// leaf the nodes that went right, leaving their bodies as holes (B8) so the kept bodies do not
    /// move, and inserts the new node when it stays left. The page's diff is then its header, its
    /// slot array and the new node, where a rewrite in key order moved nearly every body.
    /// </summary>
    private void KeepOnLeft(Span<byte> leaf, int oldCount, int index, int cut)
    {
        var staysLeft = index < cut;
        TreePageEditor.RemoveNodesLeavingHoles(leaf, staysLeft ? cut - 1 : cut, oldCount, _file);
        if (staysLeft)
        {
            var node = Scratch.Node(index);
            node.CopyTo(TreePageEditor.InsertNode(leaf, index, node.Length, _file));
        }
    }

    /// <summary>Writes the scratch's nodes [0, cut) over <paramref name="leftNumber"/> and [cut, Count) to a new page; returns the new page.</summary>
    private long WriteSplit(long leftNumber, int cut)
    {
        // BT9: allocate first, then fetch the left page writable again, so no span is stale.
        var right = _pages.AllocatePages(1, out var rightNumber);
        Scratch.WriteTo(right, cut, Scratch.Count);
        Scratch.WriteTo(_pages.ModifyPage(leftNumber), 0, cut);
        return rightNumber;
    }

    /// <summary>
    /// The shortest prefix of <paramref name="right"/> that is still greater than
    /// <paramref name="left"/>: a valid separator (BT3) that keeps branches small.
    /// </summary>
    private ReadOnlySpan<byte> ShortestSeparator(ReadOnlySpan<byte> left, ReadOnlySpan<byte> right)
    {
        Debug.Assert(left.SequenceCompareTo(right) < 0, "BT1: keys increase across the cut");
        var common = left.CommonPrefixLength(right);
        return CopySeparator(right[..(common + 1)]);
    }

    private ReadOnlySpan<byte> CopySeparator(ReadOnlySpan<byte> key)
    {
        var buffer = SeparatorBuffer;
        key.CopyTo(buffer);
        return buffer.AsSpan(0, key.Length);
    }
}
