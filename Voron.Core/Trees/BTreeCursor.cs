using System.Runtime.Intrinsics.X86;

namespace Voron.Trees;

/// <summary>
/// Ordered iteration over a <see cref="BTree"/>: seek, then move either way. Holds the path from
/// the root to the current entry as page numbers and slots, and re-reads pages on each call
/// (except a current leaf in the data file's mapping, whose address it keeps), so it allocates
/// nothing after its first seek.
/// </summary>
/// <remarks>
/// A cursor is tied to the tree's version (BT10): after any change to the tree, reading or moving
/// a positioned cursor throws <see cref="InvalidOperationException"/>; seek again to continue.
/// <see cref="Key"/> and <see cref="Value"/> point into pages and are valid until the tree changes.
/// When a seek or move finds no entry, it returns false and the cursor is no longer positioned.
/// </remarks>
internal sealed class BTreeCursor
{
    private readonly BTree _tree;
    private long[] _pages = new long[8];
    private int[] _indexes = new int[8];
    private int _leafLevel = -1;
    private long _version;

    // The current leaf's entry count, read when the cursor lands on the leaf: the version check
    // (BT10) guarantees the leaf is unchanged while the cursor is positioned, so moving within it
    // opens no page (a scan opened each leaf twice per entry before).
    private int _leafCount;

    // The current leaf's address and node-area start when it lies in the data file's mapping
    // (IPageAccess.IsMapped), else 0: Key and Value then read it where it is, instead of fetching
    // and checking the page again for every entry (a full scan spent a fifth of its time there).
    // Pages held in memory are fetched each time: only the transaction's reference keeps them.
    // A sealed store's opened page is kept at its pinned address with its buffer (OP5).
    private nint _leafAddress;
    private object? _leafKeepAlive;
    private int _leafUpper;

    private const int CacheLine = 64;

    internal BTreeCursor(BTree tree) => _tree = tree;

    /// <summary>Whether the cursor is on an entry.</summary>
    public bool IsPositioned => _leafLevel >= 0;

    public ReadOnlySpan<byte> Key
    {
        get
        {
            EnsurePositioned();
            return Leaf().GetKey(_indexes[_leafLevel]);
        }
    }

    public ReadOnlySpan<byte> Value
    {
        get
        {
            EnsurePositioned();
            return _tree.ReadValue(Leaf(), _indexes[_leafLevel]);
        }
    }

    private TreePage Leaf() => _leafAddress != 0
        ? _tree.ReopenMappedLeaf(_leafAddress, _pages[_leafLevel], _leafCount, _leafUpper)
        : _tree.OpenPage(_pages[_leafLevel], _leafLevel);

    public bool SeekFirst() => Start() && DescendEdge(0, _tree.State.RootPage, first: true);

    public bool SeekLast() => Start() && DescendEdge(0, _tree.State.RootPage, first: false);

    /// <summary>Positions on the first key &gt;= <paramref name="key"/> (any length; an empty key seeks the first entry).</summary>
    public bool Seek(ReadOnlySpan<byte> key)
    {
        if (!Start())
        {
            return false;
        }

        var index = DescendTo(key, out _, out var count);
        if (index < count)
        {
            _indexes[_leafLevel] = index;
            return true;
        }

        // The key is above every key of this leaf but below the next leaf's separator: the
        // answer is the next leaf's first entry.
        _indexes[_leafLevel] = count - 1;
        return MoveNext();
    }

    /// <summary>Positions on the last key &lt;= <paramref name="key"/>.</summary>
    public bool SeekForPrevious(ReadOnlySpan<byte> key)
    {
        if (!Start())
        {
            return false;
        }

        var index = DescendTo(key, out var exact, out _);
        if (!exact)
        {
            index--;
        }

        if (index >= 0)
        {
            _indexes[_leafLevel] = index;
            return true;
        }

        // Every key of this leaf is greater: the answer is the previous leaf's last entry.
        _indexes[_leafLevel] = 0;
        return MovePrevious();
    }

    public bool MoveNext()
    {
        if (!IsPositioned)
        {
            return false;
        }

        EnsureCurrent();
        if (_indexes[_leafLevel] + 1 < _leafCount)
        {
            _indexes[_leafLevel]++;
            return true;
        }

        for (var level = _leafLevel - 1; level >= 0; level--)
        {
            var branch = _tree.OpenPage(_pages[level], level);
            if (_indexes[level] + 1 < branch.Count)
            {
                _indexes[level]++;
                return DescendEdge(level + 1, branch.GetChild(_indexes[level]), first: true);
            }
        }

        _leafLevel = -1;
        return false;
    }

    public bool MovePrevious()
    {
        if (!IsPositioned)
        {
            return false;
        }

        EnsureCurrent();
        if (_indexes[_leafLevel] > 0)
        {
            _indexes[_leafLevel]--;
            return true;
        }

        for (var level = _leafLevel - 1; level >= 0; level--)
        {
            if (_indexes[level] > 0)
            {
                _indexes[level]--;
                var branch = _tree.OpenPage(_pages[level], level);
                return DescendEdge(level + 1, branch.GetChild(_indexes[level]), first: false);
            }
        }

        _leafLevel = -1;
        return false;
    }

    /// <summary>Unpositions the cursor and sizes its path for the tree; false when the tree is empty.</summary>
    private bool Start()
    {
        _leafLevel = -1;
        _version = _tree.Version;
        var depth = _tree.State.Depth;
        if (_pages.Length < depth)
        {
            _pages = new long[depth * 2];
            _indexes = new int[depth * 2];
        }

        return depth > 0;
    }

    /// <summary>
    /// Descends to the leaf for <paramref name="key"/>, recording the path and positioning on the
    /// leaf; returns the slot of the key, or where it would be inserted (the caller sets the slot).
    /// </summary>
    private int DescendTo(ReadOnlySpan<byte> key, out bool exact, out int count)
    {
        var pageNumber = _tree.State.RootPage;
        for (var level = 0; ; level++)
        {
            var page = _tree.OpenPage(pageNumber, level, out var mappedAddress, out var keepAlive);
            _pages[level] = pageNumber;
            if (page.IsLeaf)
            {
                Land(level, page, mappedAddress, keepAlive, scanning: false);
                count = page.Count;
                var found = page.SearchLeaf(key);
                exact = found >= 0;
                return exact ? found : ~found;
            }

            var index = page.SearchBranch(key);
            _indexes[level] = index;
            pageNumber = page.GetChild(index);
        }
    }

    /// <summary>Descends from <paramref name="pageNumber"/> at <paramref name="level"/> along the first or last child to a leaf's first or last entry.</summary>
    private bool DescendEdge(int level, long pageNumber, bool first)
    {
        for (; ; level++)
        {
            var page = _tree.OpenPage(pageNumber, level, out var mappedAddress, out var keepAlive);
            _pages[level] = pageNumber;
            var index = first ? 0 : page.Count - 1;
            _indexes[level] = index;
            if (page.IsLeaf)
            {
                Land(level, page, mappedAddress, keepAlive, scanning: true);
                return true;
            }

            pageNumber = page.GetChild(index);
        }
    }

    /// <summary>
    /// Positions on <paramref name="leaf"/> at <paramref name="level"/> (the caller sets the slot).
    /// <paramref name="scanning"/>: the cursor reached the leaf's edge moving along the tree (a
    /// move past a leaf, SeekFirst, SeekLast), so it will likely read all of it; a Seek may read
    /// one entry, and its leaf is not prefetched.
    /// </summary>
    private void Land(int level, TreePage leaf, nint mappedAddress, object? keepAlive, bool scanning)
    {
        _leafLevel = level;
        _leafCount = leaf.Count;
        _leafAddress = mappedAddress;
        _leafKeepAlive = keepAlive; // OP5: the opened buffer stays as long as its address is used
        _leafUpper = leaf.Upper;
        if (scanning && mappedAddress != 0)
        {
            PrefetchNodes(mappedAddress, leaf.Upper);
        }
    }

    /// <summary>
    /// Asks the CPU for the cache lines of a mapped leaf's node area as a scan lands on it.
    /// Nodes lie in the order they were inserted, not in key order, so a scan would otherwise
    /// wait on memory for most entries (docs/results/2026-12-06-code-comment-measurements.md).
    /// x86 only (.NET has no prefetch intrinsic for Arm).
    /// </summary>
    private static unsafe void PrefetchNodes(nint page, int upper)
    {
        if (!Sse.IsSupported)
        {
            return;
        }

        for (var line = upper & ~(CacheLine - 1); line < Constants.PageSize; line += CacheLine)
        {
            Sse.Prefetch0((byte*)page + line);
        }
    }

    private void EnsurePositioned()
    {
        if (!IsPositioned)
        {
            throw new InvalidOperationException("the cursor is not positioned on an entry; seek first");
        }

        EnsureCurrent();
    }

    private void EnsureCurrent()
    {
        if (_version != _tree.Version)
        {
            throw new InvalidOperationException("the tree changed after the cursor was positioned; seek again before reading or moving it");
        }
    }
}
