namespace Voron.Trees;

internal sealed partial class BTree
{
    /// <summary>Removes <paramref name="key"/>; returns whether it was there.</summary>
    public bool Delete(ReadOnlySpan<byte> key)
    {
        ValidateKey(key);
        EnsureWritable();
        if (_state.RootPage == 0)
        {
            return false;
        }

        var found = DescendForUpdate(key);
        if (found < 0)
        {
            return false;
        }

        _version++;
        var level = _state.Depth - 1;
        var leafNumber = _pathPages[level];
        var leaf = OpenPage(leafNumber, level);
        var field = leaf.GetValueField(found, out var flags, out var valueSize);
        var nodeSize = leaf.GetNode(found).Length;
        if (flags == TreeNodeFlags.Overflow)
        {
            FreeRun(leaf.GetRunPage(field), valueSize);
        }

        TreePageEditor.RemoveNode(_pages.ModifyPage(leafNumber), found, nodeSize, _file);
        _state.EntryCount--;
        Rebalance(level);
        return true;
    }

    /// <summary>Frees every page of the tree, overflow runs included; the tree is then empty.</summary>
    public void DeleteAll()
    {
        EnsureWritable();
        _version++;
        if (_state.RootPage != 0)
        {
            FreeSubtree(_state.RootPage, 0);
        }

        _state = default;
    }

    private void FreeSubtree(long pageNumber, int level)
    {
        // Freeing other pages leaves this page's span valid (BT9 concerns the same page only).
        var page = OpenPage(pageNumber, level);
        for (var i = 0; i < page.Count; i++)
        {
            if (page.IsLeaf)
            {
                var field = page.GetValueField(i, out var flags, out var valueSize);
                if (flags == TreeNodeFlags.Overflow)
                {
                    FreeRun(page.GetRunPage(field), valueSize);
                }
            }
            else
            {
                FreeSubtree(page.GetChild(i), level + 1);
            }
        }

        _pages.FreePages(pageNumber, 1);
    }
}
