using System.Buffers.Binary;
using System.Diagnostics;
using Voron.Paging;

namespace Voron.Trees;

/// <summary>
/// Writes tree pages and nodes in the layout of the FORMAT block in TreePage.cs. Callers pass a
/// writable page they have already validated (by opening it as a <see cref="TreePage"/>) and
/// sizes computed from it, so these helpers only assert what the tree has proven.
/// </summary>
internal static class TreePageEditor
{
    private const int SlotSize = TreePage.SlotSize;

    /// <summary>Makes <paramref name="page"/> an empty leaf or branch (header fields only; old bytes stay as garbage in the free gap).</summary>
    public static void Initialize(Span<byte> page, PageFlags kind)
    {
        Debug.Assert(kind is PageFlags.Leaf or PageFlags.Branch, "B1: a tree page is a leaf or a branch");
        PageHeader.SetFlags(page, kind);
        PageHeader.SetLower(page, PageHeader.Size);
        PageHeader.SetUpper(page, Constants.PageSize);
    }

    public static int Count(ReadOnlySpan<byte> page) => (PageHeader.GetLower(page) - PageHeader.Size) / SlotSize;

    /// <summary>Whether a node of <paramref name="nodeSize"/> bytes and its slot fit the free gap (B8: free space is never fragmented).</summary>
    public static bool Fits(ReadOnlySpan<byte> page, int nodeSize) =>
        PageHeader.GetUpper(page) - PageHeader.GetLower(page) >= nodeSize + SlotSize;

    public static int LeafNodeSize(int keySize, int valueSize) =>
        TreePage.LeafNodeHeaderSize + keySize + valueSize;

    /// <summary>Whether a value must go to an overflow run (B2: the inline node would exceed MaxLeafNodeSize).</summary>
    public static bool NeedsOverflow(int keySize, long valueSize) =>
        TreePage.LeafNodeHeaderSize + keySize + valueSize > TreePage.MaxLeafNodeSize;

    public static int OverflowNodeSize(int keySize) =>
        TreePage.LeafNodeHeaderSize + keySize + TreePage.OverflowPointerSize;

    public static int BranchNodeSize(int keySize) => TreePage.BranchNodeHeaderSize + keySize;

    /// <summary>Opens a slot at <paramref name="index"/> and returns the <paramref name="nodeSize"/> bytes reserved for its body.</summary>
    public static Span<byte> InsertNode(Span<byte> page, int index, int nodeSize)
    {
        int lower = PageHeader.GetLower(page);
        int upper = PageHeader.GetUpper(page);
        var count = (lower - PageHeader.Size) / SlotSize;
        Debug.Assert(upper - lower >= nodeSize + SlotSize, "caller checked Fits");
        Debug.Assert((uint)index <= (uint)count, "slot index within the page");

        upper -= nodeSize;
        var slots = page[PageHeader.Size..(lower + SlotSize)];
        slots[(index * SlotSize)..(count * SlotSize)].CopyTo(slots[((index + 1) * SlotSize)..]);
        BinaryPrimitives.WriteUInt16LittleEndian(slots[(index * SlotSize)..], (ushort)upper);
        PageHeader.SetLower(page, (ushort)(lower + SlotSize));
        PageHeader.SetUpper(page, (ushort)upper);
        return page.Slice(upper, nodeSize);
    }

    /// <summary>Appends a copy of <paramref name="node"/> after the page's last slot.</summary>
    public static void AppendNode(Span<byte> page, ReadOnlySpan<byte> node) =>
        node.CopyTo(InsertNode(page, Count(page), node.Length));

    /// <summary>
    /// Removes node <paramref name="index"/> (its body is <paramref name="nodeSize"/> bytes) and
    /// slides the bodies below it up, keeping B8 (no gaps) so free space stays one gap.
    /// </summary>
    public static void RemoveNode(Span<byte> page, int index, int nodeSize)
    {
        int lower = PageHeader.GetLower(page);
        int upper = PageHeader.GetUpper(page);
        var count = (lower - PageHeader.Size) / SlotSize;
        var slots = page[PageHeader.Size..lower];
        int offset = BinaryPrimitives.ReadUInt16LittleEndian(slots[(index * SlotSize)..]);
        Debug.Assert(offset >= upper && offset + nodeSize <= Constants.PageSize, "B4: the node is inside the node area");

        page[upper..offset].CopyTo(page[(upper + nodeSize)..]);
        for (var i = 0; i < count; i++)
        {
            var slot = slots[(i * SlotSize)..];
            int other = BinaryPrimitives.ReadUInt16LittleEndian(slot);
            if (other < offset)
            {
                BinaryPrimitives.WriteUInt16LittleEndian(slot, (ushort)(other + nodeSize));
            }
        }

        slots[((index + 1) * SlotSize)..].CopyTo(slots[(index * SlotSize)..]);
        PageHeader.SetLower(page, (ushort)(lower - SlotSize));
        PageHeader.SetUpper(page, (ushort)(upper + nodeSize));
    }

    /// <summary>The body of node <paramref name="index"/>, writable, for an in-place rewrite of the same size.</summary>
    public static Span<byte> NodeAt(Span<byte> page, int index, int nodeSize)
    {
        int offset = BinaryPrimitives.ReadUInt16LittleEndian(page[(PageHeader.Size + (index * SlotSize))..]);
        return page.Slice(offset, nodeSize);
    }

    /// <summary>Writes an Inline leaf node, or an Overflow node when <paramref name="runPage"/> is not 0.</summary>
    public static void WriteLeafNode(Span<byte> node, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, long runPage)
    {
        BinaryPrimitives.WriteUInt16LittleEndian(node, (ushort)key.Length);
        node[TreePage.FlagsOffset] = (byte)(runPage == 0 ? TreeNodeFlags.Inline : TreeNodeFlags.Overflow);
        BinaryPrimitives.WriteInt32LittleEndian(node[TreePage.ValueSizeOffset..], value.Length);
        key.CopyTo(node[TreePage.LeafNodeHeaderSize..]);
        var field = node[(TreePage.LeafNodeHeaderSize + key.Length)..];
        if (runPage == 0)
        {
            Debug.Assert(field.Length == value.Length, "B2: the node was sized for its inline value");
            value.CopyTo(field);
        }
        else
        {
            Debug.Assert(field.Length == TreePage.OverflowPointerSize, "the node was sized for a run pointer");
            BinaryPrimitives.WriteInt64LittleEndian(field, runPage);
        }
    }

    public static void WriteBranchNode(Span<byte> node, ReadOnlySpan<byte> key, long child)
    {
        Debug.Assert(child > 0, "B5: child page numbers are positive");
        BinaryPrimitives.WriteUInt16LittleEndian(node, (ushort)key.Length);
        node[TreePage.FlagsOffset] = (byte)TreeNodeFlags.PageRef;
        BinaryPrimitives.WriteInt64LittleEndian(node[TreePage.ChildPageOffset..], child);
        key.CopyTo(node[TreePage.BranchNodeHeaderSize..]);
    }

    /// <summary>Appends a branch node after the page's last slot.</summary>
    public static void AppendBranchNode(Span<byte> page, ReadOnlySpan<byte> key, long child) =>
        WriteBranchNode(InsertNode(page, Count(page), BranchNodeSize(key.Length)), key, child);
}
