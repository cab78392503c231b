using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Voron.Paging;

namespace Voron.Trees;

// The B+tree: ordered byte keys (1..MaxKeySize, compared as unsigned bytes) to byte values
// (0..MaxValueSize), over the slotted pages of TreePage.cs. One instance serves one tree within
// one transaction; the caller persists State at commit.
//
// Design notes
// - Pages are reached through IPageAccess. Page numbers are stable (the transaction layer's page
//   table does MVCC), so changing a page never rewrites its parent: only splits and merges touch
//   parents, to add or remove a separator.
// - Lookups descend from the root with a binary search per page and allocate nothing. Mutations
//   record the descent (page and slot per level) in reused arrays and walk back up it for splits
//   and merges; nothing is recursive except DeleteAll and Verify, whose depth is State.Depth.
// - Splits cut by bytes, never by count (NodeScratch.ChooseSplit): with B2's node bounds a cut
//   where both halves fit always exists, however large the new node. Appending past the last key
//   of the tree leaves the full page full and starts a new one, so sequential loads fill pages.
// - A leaf split pushes up the shortest prefix of the right page's first key that is still
//   greater than the left page's last key, which keeps branches wide.
// - Deletes compact the page at once (B8). Nodes that a split or share moves to a sibling leave
//   holes instead (B8): the page keeps its other bodies where they are, so its journal diff is its
//   header and slot array, not a page of moved bodies; an insert fills a hole or, when none fits,
//   compacts the page (TreePageEditor.InsertNode). A page left below a
//   quarter full merges with a sibling when both fit one page, else the two share their nodes
//   evenly and the parent's separator is replaced (which may split the parent; rebalancing stops
//   there, the split halves being well filled).
// - Values too big for half a page go to overflow runs; a run is never modified in place
//   (IPageAccess.ModifyPage works on single pages): replacing the value frees the run.
//
// Invariants
// BT1. Keys strictly increase within a page (B7) and across the leaves in tree order.
// BT2. Every leaf is at level State.Depth - 1 and every page above is a branch; RootPage is 0 iff
//      Depth is 0 iff the tree is empty. Checked on every descent (OpenPage).
// BT3. Branch node i >= 1 has separator key k(i); child i holds exactly the keys of the branch's
//      range that are >= k(i) and < k(i+1). Node 0's key is empty (below every key).
// BT4. No page is empty and no branch has a single child once an operation returns: an emptied
//      leaf is merged away, a root branch left with one child is replaced by it, and a non-root
//      branch with one child is below the fill bound and merged or rebalanced.
// BT5. State's EntryCount, LeafPages, BranchPages and OverflowPages are exact.
// BT6. Every page and run belongs to exactly one place in the tree; a freed page is unreachable.
// BT7. A value is written to an overflow run iff its inline node would exceed MaxLeafNodeSize (B2);
//      a run an older build wrote may hold a value down to MinOverflowNodeSize until it is
//      rewritten (B6).
// BT8. (Soft) after a delete, a non-root page below MinFillBytes is merged with or rebalanced
//      against a sibling. Sizes vary too much for a hard fill bound, so Verify does not check it.
// BT9. A span from GetPage is not used after ModifyPage or AllocatePages of the same page: code
//      fetches the writable page right before writing it and allocates new pages before that.
// BT10. Every mutation bumps Version; a cursor positioned at an older version throws instead of
//      reading (BTreeCursor).
// BT11. (Soft) a leaf split keeps ascending runs dense: appending past the tree's last key leaves
//      the full page behind and starts a page with the new node alone. A new key that lands just
//      after this tree's previous new key in the same leaf (at most one old key between: an
//      ascending run in the middle of the tree, such as ids "p/1000", "p/10000", "p/10001" ...
//      inserted in numeric order) stays last on the left page when nodes follow it, and past the
//      end of a full leaf moves to the start of its right sibling when it fits there
//      (TrySpillToRightSibling), else starts a page alone. Without it such runs leave leaves about
//      half full (docs/results/2026-12-06-code-comment-measurements.md).
// BT12. (Soft) any other full leaf first shares its nodes evenly with its right sibling under the
//      same parent when the transaction already held writable copies of both pages before this
//      Put (IPageAccess.HoldsWritableCopy: modified or created in it), the pair and the new node
//      take at most 90% of two pages and a cut fits both (TryShareWithRightSibling); only then
//      does it split. A share moves the leaf's last nodes to the head of its sibling: the moved
//      bodies, both slot arrays and headers change, and the leaf keeps the others in place (holes,
//      B8). On pages the transaction had not touched even that costs more journal bytes than the
//      leaf fill is worth (docs/results/2026-12-06-code-comment-measurements.md); on pages it
//      already holds (large loads) it adds little to their diffs.
// BT13. A Put reuses the previous Put's path instead of descending from the root only when that
//      path ran along the right edge to the tree's last leaf, no mutation came between (the
//      Version is exactly one past the one the previous Put left, and no descent came between:
//      DescendForUpdate forgets the hint), that Put changed no branch and no other page (no split,
//      share or spill), and the new key is above the leaf's last key: an in-order load then costs
//      one compare per key, not a search per level.
//
// Bytes from pages are validated (TreePage: B1-B8) and raise CorruptionException; Debug.Assert
// is kept for what this code has proven itself.

/// <summary>A B+tree over the pages of one transaction. Not thread-safe; see the notes above.</summary>
internal sealed partial class BTree
{
    private readonly IPageAccess _pages;
    private readonly string _file;
    private TreeState _state;
    private long _version;

    // The last mutation's descent: page number and slot per level, root first (reused).
    private long[] _pathPages = new long[8];
    private int[] _pathIndexes = new int[8];

    // BT11: where the last new key went (leaf page, slot), so a split can tell a run of ascending
    // inserts in the middle of the tree from random ones. A hint only: stale after merges.
    private long _lastInsertPage;
    private int _lastInsertIndex = -1;

    // BT13: the Version after which the recorded path still runs along the right edge of the
    // tree to its last leaf (no change since but the Put that left it so); -1 when not known.
    private long _rightEdgeVersion = -1;

    // Whether the last DescendForUpdate took the last child of every branch on its way.
    private bool _descentOnRightEdge;

    // Working buffers of structural changes, made on the first one.
    private NodeScratch? _scratch;
    private byte[]? _separator;

    public BTree(IPageAccess pages, TreeState state)
    {
        ArgumentNullException.ThrowIfNull(pages);
        if (state.RootPage < 0 || state.Depth < 0 || state.Depth > TreeState.MaxDepth || (state.RootPage == 0) != (state.Depth == 0))
        {
            throw new ArgumentException($"the tree state is inconsistent: {state}", nameof(state));
        }

        _pages = pages;
        _file = pages.DataFilePath;
        _state = state;
    }

    /// <summary>The tree's current description; the caller persists it at commit.</summary>
    public TreeState State => _state;

    /// <summary>Bumped by every mutation (BT10).</summary>
    internal long Version => _version;

    private NodeScratch Scratch => _scratch ??= new NodeScratch();

    private byte[] SeparatorBuffer => _separator ??= new byte[Constants.MaxKeySize];

    public BTreeCursor OpenCursor() => new(this);

    /// <summary>Opens page <paramref name="pageNumber"/> found at <paramref name="level"/>, checking B1, B3 and BT2.</summary>
    /// <param name="allowEmpty">Only while a delete rebalances: a leaf it emptied may be opened (never a branch).</param>
    /// <param name="pageNumber">The page to open.</param>
    /// <param name="level">The depth it was reached at (0 = the root; leaves are at depth - 1).</param>
    internal TreePage OpenPage(long pageNumber, int level, bool allowEmpty = false) =>
        CheckLevel(TreePage.Open(_pages.GetPage(pageNumber), pageNumber, _file, allowEmpty && level == _state.Depth - 1), level);

    /// <summary>BT2: leaves are exactly the pages at the last level.</summary>
    private TreePage CheckLevel(TreePage page, int level)
    {
        if (page.IsLeaf != (level == _state.Depth - 1))
        {
            page.ThrowCorrupt($"rule BT2: a {(page.IsLeaf ? "leaf" : "branch")} at level {level} of a tree of depth {_state.Depth}");
        }

        return page;
    }

    /// <summary>
    /// <see cref="OpenPage(long, int, bool)"/>, and the page's address when it lies in the data
    /// file's mapping or a sealed store's decrypted-page cache (<see cref="IPageAccess.IsMapped"/>),
    /// else 0; <paramref name="keepAlive"/> must be kept as long as the address is used.
    /// </summary>
    internal unsafe TreePage OpenPage(long pageNumber, int level, out nint mappedAddress, out object? keepAlive)
    {
        var bytes = _pages.GetPage(pageNumber);
        var page = CheckLevel(TreePage.Open(bytes, pageNumber, _file), level);
        mappedAddress = _pages.IsMapped(bytes, out keepAlive) ? (nint)Unsafe.AsPointer(ref MemoryMarshal.GetReference(bytes)) : 0;
        return page;
    }

    /// <summary>
    /// The leaf <see cref="OpenPage(long, int, out nint, out object)"/> found at <paramref name="mappedAddress"/>,
    /// neither fetched nor checked again: while the tree's version is unchanged (BT10) and its
    /// transaction is open, mapped bytes stay where they are and as they were (PG1).
    /// </summary>
    internal unsafe TreePage ReopenMappedLeaf(nint mappedAddress, long pageNumber, int count, int upper) =>
        TreePage.Reopen(new ReadOnlySpan<byte>((void*)mappedAddress, Constants.PageSize), pageNumber, _file, count, upper);

    /// <summary>The value of leaf node <paramref name="index"/>, inline or from its overflow run.</summary>
    internal ReadOnlySpan<byte> ReadValue(TreePage leaf, int index)
    {
        var field = leaf.GetValueField(index, out var flags, out var valueSize);
        return flags == TreeNodeFlags.Inline ? field : ReadRun(leaf.GetRunPage(field), valueSize);
    }

    /// <summary>The value bytes of the run at <paramref name="runPage"/>, checking B6.</summary>
    private ReadOnlySpan<byte> ReadRun(long runPage, int valueSize)
    {
        var run = _pages.GetPage(runPage);
        if (run.Length < PageHeader.Size + (long)valueSize || PageHeader.GetFlags(run) != PageFlags.Overflow ||
            PageHeader.GetPageNumber(run) != runPage || PageHeader.GetOverflowSize(run) != valueSize)
        {
            TreePage.ThrowCorrupt(_file, runPage, $"rule B6: expected an overflow run of {valueSize} bytes, found flags {(run.Length >= PageHeader.Size ? PageHeader.GetFlags(run) : PageFlags.None)}");
        }

        return run.Slice(PageHeader.Size, valueSize);
    }

    private static void ValidateKey(ReadOnlySpan<byte> key)
    {
        if (key.Length is 0 or > Constants.MaxKeySize)
        {
            throw new ArgumentException($"the key is {key.Length} bytes; keys must be 1 to {Constants.MaxKeySize} bytes", nameof(key));
        }
    }

    private void EnsureWritable()
    {
        if (!_pages.IsWritable)
        {
            throw new InvalidOperationException("the tree cannot be changed in a read-only transaction");
        }
    }

    /// <summary>Descends to the leaf for <paramref name="key"/>, recording the path; returns the leaf search result.</summary>
    private int DescendForUpdate(ReadOnlySpan<byte> key)
    {
        Debug.Assert(_state.RootPage != 0, "BT2: a non-empty tree has a root");
        if (_pathPages.Length < _state.Depth + 1)
        {
            Array.Resize(ref _pathPages, _state.Depth * 2);
            Array.Resize(ref _pathIndexes, _state.Depth * 2);
        }

        _rightEdgeVersion = -1; // BT13: the path is about to change (a Delete that finds nothing bumps no Version)
        var pageNumber = _state.RootPage;
        var rightEdge = true;
        for (var level = 0; ; level++)
        {
            var page = OpenPage(pageNumber, level);
            _pathPages[level] = pageNumber;
            if (page.IsLeaf)
            {
                var found = page.SearchLeaf(key);
                _pathIndexes[level] = found >= 0 ? found : ~found;
                _descentOnRightEdge = rightEdge;
                return found;
            }

            var index = page.SearchBranch(key);
            _pathIndexes[level] = index;
            rightEdge &= index == page.Count - 1;
            pageNumber = page.GetChild(index);
        }
    }

    /// <summary>
    /// BT13: when the recorded path is known to end at the tree's last leaf and nothing changed
    /// since, a key above that leaf's last key is an append: the path is reused with the new slot
    /// past the last node, and no descent from the root is made. Returns false (nothing changed)
    /// otherwise; the caller then descends.
    /// </summary>
    private bool TryAppendPath(ReadOnlySpan<byte> key, out int found)
    {
        found = 0;
        if (_rightEdgeVersion != _version - 1)
        {
            return false;
        }

        var level = _state.Depth - 1;
        var leaf = OpenPage(_pathPages[level], level);
        if (key.SequenceCompareTo(leaf.GetKey(leaf.Count - 1)) <= 0)
        {
            return false;
        }

        _pathIndexes[level] = leaf.Count;
        _descentOnRightEdge = true;
        found = ~leaf.Count;
        return true;
    }

    /// <summary>Whether the recorded path above <paramref name="level"/> runs along the right edge of the tree.</summary>
    private bool IsOnRightEdge(int level)
    {
        for (var above = 0; above < level; above++)
        {
            if (_pathIndexes[above] != OpenPage(_pathPages[above], above).Count - 1)
            {
                return false;
            }
        }

        return true;
    }
}
