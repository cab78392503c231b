using System.Runtime.CompilerServices;
using Voron.Paging;

namespace Voron.Trees;

internal sealed partial class BTree
{
    /// <summary>Inserts <paramref name="key"/> or replaces its value.</summary>
    /// <remarks>
    /// <paramref name="key"/> and <paramref name="value"/> may point into this tree's own pages
    /// (a cursor's Key, a value from TryGet): the key and an inline-sized value are copied before
    /// any page changes, and a large value is written to its new run before the old run is freed.
    /// </remarks>
    [SkipLocalsInit]
    public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        ValidateKey(key);
        if (value.Length > Constants.MaxValueSize)
        {
            throw new ArgumentException($"the value is {value.Length} bytes; values must be at most {Constants.MaxValueSize} bytes", nameof(value));
        }

        EnsureWritable();
        _version++;
        Span<byte> keyCopy = stackalloc byte[Constants.MaxKeySize];
        key.CopyTo(keyCopy);
        if (TreePageEditor.NeedsOverflow(key.Length, value.Length))
        {
            PutCopied(keyCopy[..key.Length], value, overflow: true);
        }
        else
        {
            Span<byte> valueCopy = stackalloc byte[TreePage.MaxLeafNodeSize];
            value.CopyTo(valueCopy);
            PutCopied(keyCopy[..key.Length], valueCopy[..value.Length], overflow: false);
        }
    }

    private void PutCopied(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, bool overflow)
    {
        var nodeSize = overflow ? TreePageEditor.OverflowNodeSize(key.Length) : TreePageEditor.LeafNodeSize(key.Length, value.Length);

        if (_state.RootPage == 0)
        {
            var runPage = overflow ? WriteRun(value) : 0;
            var root = _pages.AllocatePages(1, out var rootNumber);
            TreePageEditor.Initialize(root, PageFlags.Leaf);
            TreePageEditor.WriteLeafNode(TreePageEditor.InsertNode(root, 0, nodeSize), key, value, runPage);
            _state.RootPage = rootNumber;
            _state.Depth = 1;
            _state.EntryCount = 1;
            _state.LeafPages = 1;
            return;
        }

        if (!TryAppendPath(key, out var found))
        {
            found = DescendForUpdate(key);
        }

        var level = _state.Depth - 1;
        var leafNumber = _pathPages[level];
        var index = _pathIndexes[level];
        var oldNodeSize = 0;
        var oldValueSize = 0;
        long oldRun = 0;
        if (found >= 0)
        {
            var leaf = OpenPage(leafNumber, level);
            var field = leaf.GetValueField(index, out var flags, out oldValueSize);
            oldNodeSize = leaf.GetNode(index).Length;
            if (flags == TreeNodeFlags.Inline && !overflow && oldNodeSize == nodeSize)
            {
                // Same size inline: rewrite the node where it is, and leave the page clean when
                // the value did not change.
                if (!field.SequenceEqual(value))
                {
                    TreePageEditor.WriteLeafNode(TreePageEditor.NodeAt(_pages.ModifyPage(leafNumber), index, nodeSize), key, value, 0);
                }

                KeepRightEdge();
                return;
            }

            oldRun = flags == TreeNodeFlags.Overflow ? leaf.GetRunPage(field) : 0;
        }

        // The new run first: the value may be the old run's bytes.
        var run = overflow ? WriteRun(value) : 0;
        if (oldRun != 0)
        {
            FreeRun(oldRun, oldValueSize);
        }

        var leafWasWritable = _pages.HoldsWritableCopy(leafNumber); // BT12: asked before this Put's own ModifyPage
        var page = _pages.ModifyPage(leafNumber);
        if (found >= 0)
        {
            TreePageEditor.RemoveNode(page, index, oldNodeSize, _file);
        }
        else
        {
            _state.EntryCount++;
        }

        // BT11: the new key lands just after the previous one in this leaf (one old key may lie between).
        var ascending = found < 0 && leafNumber == _lastInsertPage && index > _lastInsertIndex && index <= _lastInsertIndex + 2;
        if (TreePageEditor.Fits(page, nodeSize))
        {
            TreePageEditor.WriteLeafNode(TreePageEditor.InsertNode(page, index, nodeSize, _file), key, value, run);
            if (found < 0)
            {
                (_lastInsertPage, _lastInsertIndex) = (leafNumber, index);
            }

            KeepRightEdge();
            return;
        }

        if (ascending && index == TreePageEditor.Count(page) && TrySpillToRightSibling(key, value, run, nodeSize))
        {
            return;
        }

        if (!ascending && TryShareWithRightSibling(key, value, run, nodeSize, index, leafWasWritable))
        {
            return;
        }

        SplitLeaf(key, value, run, nodeSize, ascending);
    }

    /// <summary>BT13: a Put that changed no branch and no other leaf keeps a right-edge path valid for the next Put.</summary>
    private void KeepRightEdge() => _rightEdgeVersion = _descentOnRightEdge ? _version : -1;

    /// <summary>Writes <paramref name="value"/> to a new overflow run and returns its first page.</summary>
    private long WriteRun(ReadOnlySpan<byte> value)
    {
        var pageCount = PageHeader.OverflowPageCount(value.Length);
        var run = _pages.AllocatePagesToFill(pageCount, PageHeader.Size + value.Length, out var runPage);
        PageHeader.SetFlags(run, PageFlags.Overflow);
        PageHeader.SetOverflowSize(run, value.Length);
        value.CopyTo(run[PageHeader.Size..]);
        _state.OverflowPages += pageCount;
        return runPage;
    }

    /// <summary>Frees the run of a value of <paramref name="valueSize"/> bytes after checking it is one (B6), so a bad node cannot free foreign pages.</summary>
    private void FreeRun(long runPage, int valueSize)
    {
        ReadRun(runPage, valueSize);
        var pageCount = PageHeader.OverflowPageCount(valueSize);
        _pages.FreePages(runPage, pageCount);
        _state.OverflowPages -= pageCount;
    }
}
