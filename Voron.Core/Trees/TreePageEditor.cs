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
        PageHeader.SetHoles(page, 0);
    }

    public static int Count(ReadOnlySpan<byte> page) => (PageHeader.GetLower(page) - PageHeader.Size) / SlotSize;

    /// <summary>Whether a node of <paramref name="nodeSize"/> bytes and its slot fit the page's free space: the gap and the holes (B8).</summary>
    public static bool Fits(ReadOnlySpan<byte> page, int nodeSize) =>
        PageHeader.GetUpper(page) - PageHeader.GetLower(page) + PageHeader.GetHoles(page) >= nodeSize + SlotSize;

    /// <summary>
    /// Opens a slot at <paramref name="index"/> and returns the <paramref name="nodeSize"/> bytes
    /// reserved for its body: in the free gap when it has room, else in the smallest hole the body
    /// fits (the slot still takes 2 bytes of the gap), else after compacting the page. The caller
    /// checked <see cref="Fits"/>. <paramref name="file"/> is named if the page breaks B8.
    /// </summary>
    public static Span<byte> InsertNode(Span<byte> page, int index, int nodeSize, string file)
    {
        int lower = PageHeader.GetLower(page);
        int upper = PageHeader.GetUpper(page);
        Debug.Assert(Fits(page, nodeSize), "caller checked Fits");
        if (upper - lower >= nodeSize + SlotSize)
        {
            return InsertNode(page, index, nodeSize);
        }

        if (upper - lower >= SlotSize)
        {
            var hole = SmallestHole(page, nodeSize, file);
            if (hole >= 0)
            {
                OpenSlot(page, index, hole);
                PageHeader.SetHoles(page, (ushort)(PageHeader.GetHoles(page) - nodeSize));
                return page.Slice(hole, nodeSize);
            }
        }

        Compact(page, file);
        return InsertNode(page, index, nodeSize);
    }

    /// <summary>
    /// Removes nodes [<paramref name="from"/>, <paramref name="to"/>) without moving any other
    /// body: their bytes become holes (B8), and the node area's lower end rises past the holes at
    /// its bottom. A split or share moves nodes out this way, so the page's diff is its header
    /// and slot array.
    /// </summary>
    public static void RemoveNodesLeavingHoles(Span<byte> page, int from, int to, string file)
    {
        var view = TreePage.Open(page, PageHeader.GetPageNumber(page), file, allowEmpty: true);
        var count = view.Count;
        Debug.Assert(0 <= from && from <= to && to <= count, "a range of the page's nodes");
        int holes = PageHeader.GetHoles(page);
        for (var i = from; i < to; i++)
        {
            holes += view.GetNode(i).Length;
        }

        var lowest = Constants.PageSize;
        for (var i = 0; i < count; i++)
        {
            if (i < from || i >= to)
            {
                lowest = Math.Min(lowest, view.GetNodeOffset(i));
            }
        }

        int upper = PageHeader.GetUpper(page);
        holes -= lowest - upper;
        if (holes < 0 || holes > Constants.PageSize - lowest)
        {
            view.ThrowCorrupt($"rule B8: removing nodes {from}..{to - 1} leaves {holes} bytes of holes below {lowest}");
        }

        int lower = PageHeader.GetLower(page);
        var slots = page[PageHeader.Size..lower];
        slots[(to * SlotSize)..].CopyTo(slots[(from * SlotSize)..]);
        PageHeader.SetLower(page, (ushort)(lower - ((to - from) * SlotSize)));
        PageHeader.SetUpper(page, (ushort)lowest);
        PageHeader.SetHoles(page, (ushort)holes);
    }

    /// <summary>
    /// Slides every body towards the page end, keeping their order, so the holes join the free
    /// gap (B8 with no holes). Bodies above the highest hole stay where they are.
    /// </summary>
    public static void Compact(Span<byte> page, string file)
    {
        var count = Count(page);
        Span<int> sorted = stackalloc int[MaxNodes];
        Span<ushort> sizes = stackalloc ushort[MaxNodes];
        SortBodies(page, file, sorted[..count], sizes[..count]);
        var top = Constants.PageSize;
        for (var i = count - 1; i >= 0; i--)
        {
            var offset = sorted[i] >> 16;
            var slot = sorted[i] & 0xFFFF;
            var target = top - sizes[slot];
            if (target != offset)
            {
                page.Slice(offset, sizes[slot]).CopyTo(page[target..]); // target > offset: moves up, overlap-safe
                BinaryPrimitives.WriteUInt16LittleEndian(page[(PageHeader.Size + (slot * SlotSize))..], (ushort)target);
            }

            top = target;
        }

        PageHeader.SetUpper(page, (ushort)top);
        PageHeader.SetHoles(page, 0);
    }

    /// <summary>The start of the smallest hole of at least <paramref name="nodeSize"/> bytes, or -1.</summary>
    private static int SmallestHole(ReadOnlySpan<byte> page, int nodeSize, string file)
    {
        var count = Count(page);
        Span<int> sorted = stackalloc int[MaxNodes];
        Span<ushort> sizes = stackalloc ushort[MaxNodes];
        SortBodies(page, file, sorted[..count], sizes[..count]);
        var best = -1;
        var bestSize = int.MaxValue;
        int at = PageHeader.GetUpper(page);
        for (var i = 0; i <= count; i++)
        {
            var next = i < count ? sorted[i] >> 16 : Constants.PageSize;
            var size = next - at;
            if (size >= nodeSize && size < bestSize)
            {
                (best, bestSize) = (at, size);
            }

            if (i < count)
            {
                at = next + sizes[sorted[i] & 0xFFFF];
            }
        }

        return best;
    }

    /// <summary>Most nodes a page can hold: the smallest leaf node (a 1-byte key, no value) and its slot.</summary>
    private const int MaxNodes = TreePage.Capacity / (TreePage.LeafNodeHeaderSize + 1 + SlotSize);

    /// <summary>
    /// The page's bodies as (offset &lt;&lt; 16 | slot) in offset order, and each slot's body size,
    /// checking B8: bodies inside the node area, not overlapping, and Holes exactly the rest.
    /// </summary>
    private static void SortBodies(ReadOnlySpan<byte> page, string file, Span<int> sorted, Span<ushort> sizes)
    {
        var view = TreePage.Open(page, PageHeader.GetPageNumber(page), file, allowEmpty: true);
        for (var i = 0; i < sorted.Length; i++)
        {
            sorted[i] = (view.GetNodeOffset(i) << 16) | i;
            sizes[i] = (ushort)view.GetNode(i).Length;
        }

        sorted.Sort();
        var at = view.Upper;
        var holes = 0;
        foreach (var entry in sorted)
        {
            var offset = entry >> 16;
            if (offset < at)
            {
                view.ThrowCorrupt($"rule B8: the node at {offset} overlaps the one before it (which ends at {at})");
            }

            holes += offset - at;
            at = offset + sizes[entry & 0xFFFF];
        }

        holes += Constants.PageSize - at;
        if (holes != view.Holes)
        {
            view.ThrowCorrupt($"rule B8: the node area has {holes} bytes no node covers, the header says {view.Holes}");
        }
    }

    public static int LeafNodeSize(int keySize, int valueSize) =>
        TreePage.LeafNodeHeaderSize + keySize + valueSize;

    /// <summary>Whether a value must go to an overflow run (B2: the inline node would exceed MaxLeafNodeSize).</summary>
    public static bool NeedsOverflow(int keySize, long valueSize) =>
        TreePage.LeafNodeHeaderSize + keySize + valueSize > TreePage.MaxLeafNodeSize;

    public static int OverflowNodeSize(int keySize) =>
        TreePage.LeafNodeHeaderSize + keySize + TreePage.OverflowPointerSize;

    public static int BranchNodeSize(int keySize) => TreePage.BranchNodeHeaderSize + keySize;

    /// <summary>
    /// Opens a slot at <paramref name="index"/> and returns the <paramref name="nodeSize"/> bytes
    /// reserved for its body in the free gap, which has room for both (a page this code is
    /// filling; a page that may have holes goes through the overload that takes the file).
    /// </summary>
    public static Span<byte> InsertNode(Span<byte> page, int index, int nodeSize)
    {
        int upper = PageHeader.GetUpper(page);
        Debug.Assert(upper - PageHeader.GetLower(page) >= nodeSize + SlotSize, "the free gap has room");
        upper -= nodeSize;
        OpenSlot(page, index, upper);
        PageHeader.SetUpper(page, (ushort)upper);
        return page.Slice(upper, nodeSize);
    }

    /// <summary>Shifts slots [index, Count) up by one and points slot <paramref name="index"/> at <paramref name="bodyOffset"/>.</summary>
    private static void OpenSlot(Span<byte> page, int index, int bodyOffset)
    {
        int lower = PageHeader.GetLower(page);
        var count = (lower - PageHeader.Size) / SlotSize;
        Debug.Assert((uint)index <= (uint)count, "slot index within the page");
        var slots = page[PageHeader.Size..(lower + SlotSize)];
        slots[(index * SlotSize)..(count * SlotSize)].CopyTo(slots[((index + 1) * SlotSize)..]);
        BinaryPrimitives.WriteUInt16LittleEndian(slots[(index * SlotSize)..], (ushort)bodyOffset);
        PageHeader.SetLower(page, (ushort)(lower + SlotSize));
    }

    /// <summary>Appends a copy of <paramref name="node"/> after the page's last slot.</summary>
    public static void AppendNode(Span<byte> page, ReadOnlySpan<byte> node) =>
        node.CopyTo(InsertNode(page, Count(page), node.Length));

    /// <summary>
    /// Removes node <paramref name="index"/> (its body is <paramref name="nodeSize"/> bytes)
    /// without moving any other body: its bytes become a hole (B8), or join the free gap when it
    /// was the lowest body, with the holes between it and the next body. A removal's diff is then
    /// the header and the slot array, not every body below it (a delete, or a put that replaces a
    /// value by one of another size). <paramref name="file"/> is named if the page breaks B8.
    /// </summary>
    public static void RemoveNode(Span<byte> page, int index, int nodeSize, string file)
    {
        int lower = PageHeader.GetLower(page);
        int upper = PageHeader.GetUpper(page);
        var count = (lower - PageHeader.Size) / SlotSize;
        var slots = page[PageHeader.Size..lower];
        int offset = BinaryPrimitives.ReadUInt16LittleEndian(slots[(index * SlotSize)..]);
        Debug.Assert(offset >= upper && offset + nodeSize <= Constants.PageSize, "B4: the node is inside the node area");

        slots[((index + 1) * SlotSize)..].CopyTo(slots[(index * SlotSize)..]);
        count--;
        int holes = PageHeader.GetHoles(page) + nodeSize;
        var lowest = offset == upper ? LowestBody(slots[..(count * SlotSize)]) : upper;
        holes -= lowest - upper; // B8: the area from the old Upper to the next body joins the gap
        if (holes < 0 || holes > Constants.PageSize - lowest)
        {
            TreePage.Open(page, PageHeader.GetPageNumber(page), file, allowEmpty: true)
                .ThrowCorrupt($"rule B8: removing node {index} leaves {holes} bytes of holes below {lowest}");
        }

        PageHeader.SetLower(page, (ushort)(lower - SlotSize));
        PageHeader.SetUpper(page, (ushort)lowest);
        PageHeader.SetHoles(page, (ushort)holes);
    }

    /// <summary>The lowest body offset the slots name, or the page end when there are none.</summary>
    private static int LowestBody(ReadOnlySpan<byte> slots)
    {
        var lowest = Constants.PageSize;
        for (var i = 0; i < slots.Length; i += SlotSize)
        {
            lowest = Math.Min(lowest, BinaryPrimitives.ReadUInt16LittleEndian(slots[i..]));
        }

        return lowest;
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
