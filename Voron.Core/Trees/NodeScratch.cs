using System.Buffers.Binary;
using System.Diagnostics;
using Voron.Paging;

namespace Voron.Trees;

/// <summary>
/// Copies of the nodes of one or two sibling pages plus the node being added, in key order: the
/// working set of a split, merge or rebalance. It chooses where to cut the sequence by bytes and
/// writes each part back as a page. One instance per <see cref="BTree"/>, reused, so structural
/// changes allocate nothing but pages.
/// </summary>
internal sealed class NodeScratch
{
    // Two pages of the smallest nodes (a 1-byte key with an empty value: 8 bytes plus a slot),
    // plus the added node and a replaced separator.
    private const int MaxNodes = (2 * TreePage.Capacity / (TreePage.LeafNodeHeaderSize + 1 + TreePage.SlotSize)) + 2;

    private readonly byte[] _bytes = new byte[(2 * Constants.PageSize) + TreePage.MaxLeafNodeSize + TreePage.MaxBranchNodeSize];
    private readonly int[] _offsets = new int[MaxNodes];
    private readonly int[] _sizes = new int[MaxNodes];
    private int _used;

    public int Count { get; private set; }

    public bool IsLeaf { get; private set; }

    /// <summary>Bytes the nodes would take in a page, slots included.</summary>
    public int TotalBytes { get; private set; }

    public void Reset(bool isLeaf)
    {
        IsLeaf = isLeaf;
        Count = 0;
        _used = 0;
        TotalBytes = 0;
    }

    /// <summary>Appends copies of every node of <paramref name="page"/>, checking B8 (the nodes fill the node area exactly).</summary>
    public void AddNodes(TreePage page)
    {
        Debug.Assert(page.IsLeaf == IsLeaf, "BT2: siblings are at the same level");
        var nodeBytes = 0;
        for (var i = 0; i < page.Count; i++)
        {
            var node = page.GetNode(i);
            nodeBytes += node.Length;
            if (nodeBytes + ((i + 1) * TreePage.SlotSize) > page.UsedBytes)
            {
                break;
            }

            node.CopyTo(Add(Count, node.Length));
        }

        if (nodeBytes + (page.Count * TreePage.SlotSize) != page.UsedBytes)
        {
            page.ThrowCorrupt($"rule B8: the nodes of the page take {nodeBytes} bytes, the node area {page.UsedBytes - (page.Count * TreePage.SlotSize)}");
        }
    }

    /// <summary>Inserts a node of <paramref name="size"/> bytes at <paramref name="index"/> and returns its body to fill in.</summary>
    public Span<byte> Add(int index, int size)
    {
        Debug.Assert((uint)index <= (uint)Count && Count < MaxNodes, "index within the scratch");
        Array.Copy(_offsets, index, _offsets, index + 1, Count - index);
        Array.Copy(_sizes, index, _sizes, index + 1, Count - index);
        _offsets[index] = _used;
        _sizes[index] = size;
        _used += size;
        Count++;
        TotalBytes += size + TreePage.SlotSize;
        return _bytes.AsSpan(_offsets[index], size);
    }

    /// <summary>Replaces node <paramref name="index"/> with a new body of <paramref name="size"/> bytes to fill in.</summary>
    public Span<byte> Replace(int index, int size)
    {
        TotalBytes += size - _sizes[index];
        _offsets[index] = _used;
        _sizes[index] = size;
        _used += size;
        return _bytes.AsSpan(_offsets[index], size);
    }

    public ReadOnlySpan<byte> Node(int index) => _bytes.AsSpan(_offsets[index], _sizes[index]);

    public ReadOnlySpan<byte> Key(int index)
    {
        var node = Node(index);
        int keySize = BinaryPrimitives.ReadUInt16LittleEndian(node);
        return node.Slice(IsLeaf ? TreePage.LeafNodeHeaderSize : TreePage.BranchNodeHeaderSize, keySize);
    }

    public long Child(int index) => BinaryPrimitives.ReadInt64LittleEndian(Node(index)[TreePage.ChildPageOffset..]);

    /// <summary>
    /// Chooses the cut: nodes [0, k) go left and [k, Count) right, so that both parts fit a page,
    /// each leaf part has at least one node and each branch part at least two children (BT4).
    /// The cut is <paramref name="preferred"/> when that is possible (the append case), else the
    /// most even by bytes. A right branch part loses its first key (it moves up), which is counted.
    /// </summary>
    public int ChooseSplit(int preferred)
    {
        var best = FindSplit(preferred);

        // B2 bounds every node to half a page (a leaf) or an eighth (a branch), so a cut exists
        // whenever the nodes are one page plus one node, or two pages one of which is below
        // MinFillBytes (a merge): the longest prefix that fits leaves less than a page after it.
        Debug.Assert(best >= 0, "B2: node sizes guarantee a cut where both parts fit");
        return best;
    }

    /// <summary>As <see cref="ChooseSplit"/>, or -1 when no cut leaves both parts within a page (a fuller share, BT12).</summary>
    public int FindSplit(int preferred)
    {
        var minimum = IsLeaf ? 1 : 2;
        var best = -1;
        var bestImbalance = int.MaxValue;
        var left = 0;
        for (var k = 0; k < minimum; k++)
        {
            left += _sizes[k] + TreePage.SlotSize;
        }

        for (var k = minimum; k <= Count - minimum; k++)
        {
            var right = TotalBytes - left - (IsLeaf ? 0 : Key(k).Length);
            if (left <= TreePage.Capacity && right <= TreePage.Capacity)
            {
                if (k == preferred)
                {
                    return k;
                }

                var imbalance = Math.Abs(left - right);
                if (imbalance < bestImbalance)
                {
                    best = k;
                    bestImbalance = imbalance;
                }
            }

            left += _sizes[k] + TreePage.SlotSize;
        }

        return best;
    }

    /// <summary>Rewrites <paramref name="page"/> as a page holding nodes [from, to); a branch page's first node gets an empty key (B5).</summary>
    public void WriteTo(Span<byte> page, int from, int to)
    {
        TreePageEditor.Initialize(page, IsLeaf ? PageFlags.Leaf : PageFlags.Branch);
        for (var i = from; i < to; i++)
        {
            if (!IsLeaf && i == from)
            {
                TreePageEditor.AppendBranchNode(page, [], Child(i));
            }
            else
            {
                TreePageEditor.AppendNode(page, Node(i));
            }
        }
    }
}
