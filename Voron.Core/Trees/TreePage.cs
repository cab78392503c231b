using System.Buffers.Binary;
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics.X86;
using Voron.Paging;

namespace Voron.Trees;

// FORMAT: tree page, version 2 — a leaf or branch page of a B+tree (Trees/BTree.cs), and the
// overflow run that holds one large value of a leaf.
//
// A tree page is one 8 KiB page: the 64-byte page header (Paging/PageHeader.cs; Flags is Leaf or
// Branch, Lower and Upper delimit the free gap, Holes counts the node area's unused bytes), then
// a slot array of little-endian ushort node offsets growing up from byte 64, then free space,
// then node bodies packed down against the page end. Slots are in key order; bodies are in
// whatever order they were written, and may leave holes between them.
//
//   0        64                      Lower            Upper                          8192
//   +--------+-------------------------+----------------+------------------------------+
//   | header | slot 0 | slot 1 | ...   |   free gap     | node bodies and Holes (B8)   |
//   +--------+-------------------------+----------------+------------------------------+
//
// Count = (Lower - 64) / 2; free space = Upper - Lower + Holes; a node costs its body plus a
// 2-byte slot.
//
// Holes: nodes that move to a sibling (a split, a share) or are removed (a delete, a value
// replaced by one of another size) leave their bodies' bytes behind as holes instead of the page
// being compacted, so the page's journal diff is its header and slot array, not every body that
// a compaction would have moved (docs/results/2026-11-27-core-gaps.md measured those rewrites at
// 85% of a random put's diff bytes). A removed body that was the lowest joins the free gap, with
// the holes between it and the next body (B8). An insert that does not fit the
// free gap takes the smallest hole its body fits (its slot still comes from the gap); when none
// fits, the page is compacted first (bodies slide towards the page end, keeping their order). A
// page with no holes is exactly a version-1 page.
//
// Leaf node (Flags Inline or Overflow):
//   OFFSET SIZE NAME        MEANING
//   0      2    KeySize     key length, 1..MaxKeySize
//   2      1    Flags       TreeNodeFlags.Inline (1): the value follows the key;
//                           TreeNodeFlags.Overflow (2): an 8-byte run page number follows the key
//   3      4    ValueSize   value length in bytes, wherever the value lives
//   7      K    Key         the key bytes (compared as unsigned bytes)
//   7+K    V    Value       Inline: the value bytes
//   7+K    8    RunPage     Overflow: first page of the overflow run holding the value
//
// Branch node (Flags PageRef):
//   OFFSET SIZE NAME        MEANING
//   0      2    KeySize     0 for the page's first node, else 1..MaxKeySize
//   2      1    Flags       TreeNodeFlags.PageRef (3)
//   3      8    ChildPage   page number of the child
//   11     K    Key         separator: the child holds the keys >= Key and < the next node's Key;
//                           the first node's empty key means "everything below the next key"
//
// Overflow run: OverflowPageCount(V) = ceil((64 + V) / 8192) consecutive pages; the first page's
// header has Flags = Overflow and OverflowSize = V, and the value bytes follow it from byte 64.
//
// A value is written inline iff its inline leaf node (7 + K + V bytes) is at most
// MaxLeafNodeSize = (8192 - 64) / 2 - 2 = 4062 bytes, so a leaf always holds at least two nodes
// with their slots, and a page plus one node (or two pages of which one is below MinFillBytes)
// can always be cut in two parts that each fit a page; otherwise it goes to an overflow run and
// the node takes 15 + K bytes. Older builds wrote values inline only up to a node of
// MinOverflowNodeSize = (8192 - 64) / 4 - 2 = 2030 bytes (a quarter page): a run may hold a value
// whose inline node would be 2031..4062 bytes (a store they wrote), never a smaller one (B6). An
// overflow run takes whole pages, so the half-page limit keeps a 2-4 KiB value from taking a whole
// 8 KiB page, half of it unused (docs/results/2026-12-06-code-comment-measurements.md). A branch
// node is at most 11 + 1024 = 1035 bytes, so a branch holds at least seven maximum keys.
//
// Validity rules: a tree page is valid iff
//   B1. the header's PageNumber is the page's number and Flags is exactly Leaf or Branch;
//   B2. every node respects the size bounds above: KeySize <= MaxKeySize, a leaf node is at most
//       MaxLeafNodeSize bytes, a branch node at most MaxBranchNodeSize bytes;
//   B3. 64 <= Lower <= Upper <= 8192, Lower - 64 is even, Holes <= 8192 - Upper, and the page
//       holds at least one node;
//   B4. every slot offset is >= Upper and the whole node at it (header, key, value or page
//       number) ends inside the page;
//   B5. leaf nodes are Inline or Overflow and branch nodes PageRef; a branch's first node has an
//       empty key and its others a non-empty one; child and run page numbers are positive;
//   B6. an overflow node's ValueSize is too big for an inline node of MinOverflowNodeSize bytes,
//       and its run starts with a page whose header says Overflow, names that page, and has
//       OverflowSize equal to ValueSize;
//   B7. keys are strictly increasing in slot order (unsigned byte order);
//   B8. node bodies do not overlap, lie inside Upper..8192, and cover all of it but Holes bytes
//       (a body starts at Upper unless the page has no node).
//
// (B3's "at least one node" has one exception that never reaches disk: the leaf a delete has just
// emptied, which the same delete merges away or frees.)
//
// What is checked when: B1 and B3 each time a page is opened; B2, B4 and B5's flags and page
// numbers each time a node is read (a few comparisons per access, no allocation); B6's run header
// each time a run is followed; B5's key rule, B6's size rule, B7 and B8 by BTree.Verify, B8's
// byte count whenever a split or merge copies a page's nodes, and all of B8 whenever an insert
// looks for a hole or compacts the page. A broken rule raises CorruptionException
// naming the data file, the page's offset and the rule. The checksum is the page header's
// (Paging/PageHeader.cs): CRC32C over the whole page or run, verified by the page layer.
//
// Reading: a lookup opens the root, binary-searches the slots of each branch for the last
// separator <= key (skipping node 0), follows that child, and binary-searches the leaf.
//
// Compatibility: a change to this layout or to a rule bumps the store's format version (the
// header file's FormatVersion, Header/HeaderFile.cs). Holes (version 2) came with store format
// 3: format-2 pages hold zero in that header field, so they read as version-2 pages without
// holes, and builds of format 2 refuse a format-3 store at its header, never meeting a hole.
// MaxLeafNodeSize is half a page (4062) from store format 3 (the last format-2 builds already wrote it so); the first format-2 builds used a
// quarter page (2030) and report an inline node of 2031..4062 bytes as corrupt (their rule B2),
// which is why such a store says format 3 and those builds refuse it at its header. Stores of
// format 2 read and verify as they are (B6 keeps the quarter-page threshold for runs, and their
// small-enough runs stay runs until the value is rewritten).

/// <summary>
/// A read view of one tree page: header checks on open, bounds-checked node access, and the
/// binary searches of lookups. See the FORMAT block above for the layout and rules.
/// </summary>
/// <remarks>
/// The view borrows the page span: it is valid only as long as that span is (until the page is
/// modified, see <see cref="IPageAccess"/>).
/// </remarks>
internal readonly ref struct TreePage
{
    public const int SlotSize = 2;
    public const int KeySizeOffset = 0;
    public const int FlagsOffset = 2;
    public const int ValueSizeOffset = 3;
    public const int ChildPageOffset = 3;
    public const int LeafNodeHeaderSize = 7;
    public const int BranchNodeHeaderSize = 11;
    public const int OverflowPointerSize = 8;

    /// <summary>Bytes for slots and nodes: everything after the page header.</summary>
    public const int Capacity = Constants.PageSize - PageHeader.Size;

    /// <summary>The largest leaf node, half a page less a slot; bigger values go to an overflow run (B2).</summary>
    public const int MaxLeafNodeSize = (Capacity / 2) - SlotSize;

    /// <summary>
    /// B6: an overflow run holds only a value whose inline node would exceed this: the quarter-page
    /// limit of older builds, so the runs they wrote for 2-4 KiB values stay valid.
    /// </summary>
    public const int MinOverflowNodeSize = (Capacity / 4) - SlotSize;

    /// <summary>The largest branch node (B2).</summary>
    public const int MaxBranchNodeSize = BranchNodeHeaderSize + Constants.MaxKeySize;

    /// <summary>A page below this many bytes of slots and nodes is merged or rebalanced after a delete.</summary>
    public const int MinFillBytes = Capacity / 4;

    private readonly ReadOnlySpan<byte> _page;
    private readonly string _file;
    private readonly long _pageNumber;
    private readonly int _upper;
    private readonly int _holes;

    private TreePage(ReadOnlySpan<byte> page, string file, long pageNumber, int count, int upper, int holes, bool isLeaf)
    {
        _page = page;
        _file = file;
        _pageNumber = pageNumber;
        Count = count;
        _upper = upper;
        _holes = holes;
        IsLeaf = isLeaf;
    }

    public int Count { get; }

    public bool IsLeaf { get; }

    public long PageNumber => _pageNumber;

    /// <summary>Start of the node area.</summary>
    public int Upper => _upper;

    /// <summary>Bytes of the node area that no body covers (B8).</summary>
    public int Holes => _holes;

    /// <summary>Bytes taken by slots and nodes (B8: the node area less its holes, so this is exact).</summary>
    public int UsedBytes => (Count * SlotSize) + (Constants.PageSize - _upper) - _holes;

    public int FreeBytes => Constants.PageSize - UsedBytes - PageHeader.Size;

    /// <summary>Opens a page, checking B1 and B3.</summary>
    /// <param name="allowEmpty">Only for a leaf the caller has just emptied itself.</param>
    /// <param name="page">The page's bytes.</param>
    /// <param name="pageNumber">The page's number, for the checks and the corruption message.</param>
    /// <param name="file">The data file, named in a corruption message.</param>
    public static TreePage Open(ReadOnlySpan<byte> page, long pageNumber, string file, bool allowEmpty = false)
    {
        if (page.Length < Constants.PageSize)
        {
            ThrowCorrupt(file, pageNumber, $"rule B3: the page is {page.Length} bytes, expected {Constants.PageSize}");
        }

        page = page[..Constants.PageSize];
        var flags = PageHeader.GetFlags(page);
        if ((flags != PageFlags.Leaf && flags != PageFlags.Branch) || PageHeader.GetPageNumber(page) != pageNumber)
        {
            ThrowCorrupt(file, pageNumber, $"rule B1: expected a tree page numbered {pageNumber}, found flags {flags} and number {PageHeader.GetPageNumber(page)}");
        }

        int lower = PageHeader.GetLower(page);
        int upper = PageHeader.GetUpper(page);
        int holes = PageHeader.GetHoles(page);
        var count = (lower - PageHeader.Size) / SlotSize;
        if (lower < PageHeader.Size || lower > upper || upper > Constants.PageSize || (lower - PageHeader.Size) % SlotSize != 0 ||
            holes > Constants.PageSize - upper || (count == 0 && !allowEmpty))
        {
            ThrowCorrupt(file, pageNumber, $"rule B3: Lower {lower}, Upper {upper} and Holes {holes} do not delimit a non-empty slotted page");
        }

        return new TreePage(page, file, pageNumber, count, upper, holes, flags == PageFlags.Leaf);
    }

    /// <summary>
    /// A leaf <see cref="Open"/> accepted earlier, opened again at the same bytes without checking
    /// B1 and B3 again: only for bytes that cannot have changed since (BTreeCursor's mapped leaf).
    /// </summary>
    public static TreePage Reopen(ReadOnlySpan<byte> page, long pageNumber, string file, int count, int upper) =>
        new(page, file, pageNumber, count, upper, PageHeader.GetHoles(page), isLeaf: true);

    /// <summary>The key of node <paramref name="index"/> (empty for a branch's first node).</summary>
    public ReadOnlySpan<byte> GetKey(int index)
    {
        var offset = NodeOffset(index);
        var headerSize = IsLeaf ? LeafNodeHeaderSize : BranchNodeHeaderSize;
        int keySize = BinaryPrimitives.ReadUInt16LittleEndian(_page[offset..]);
        if (keySize > Constants.MaxKeySize || offset + headerSize + keySize > Constants.PageSize)
        {
            ThrowCorrupt(_file, _pageNumber, $"rule B4: node {index} at offset {offset} has a {keySize}-byte key that does not fit");
        }

        if (keySize == 0 && (IsLeaf || index != 0))
        {
            // Read back as a key, an empty one would reach callers that refuse it (ArgumentException)
            // instead of failing here as corruption.
            ThrowCorrupt(_file, _pageNumber, $"rule B2: {(IsLeaf ? "leaf" : "branch")} node {index} has an empty key (only a branch's first node may)");
        }

        return _page.Slice(offset + headerSize, keySize);
    }

    /// <summary>
    /// The value field of leaf node <paramref name="index"/>: the value itself when
    /// <paramref name="flags"/> is Inline, else the 8-byte run page number (see <see cref="GetRunPage"/>).
    /// </summary>
    public ReadOnlySpan<byte> GetValueField(int index, out TreeNodeFlags flags, out int valueSize)
    {
        Debug.Assert(IsLeaf, "value fields are read from leaves only");
        var offset = NodeOffset(index);
        int keySize = BinaryPrimitives.ReadUInt16LittleEndian(_page[offset..]);
        flags = (TreeNodeFlags)_page[offset + FlagsOffset];
        valueSize = BinaryPrimitives.ReadInt32LittleEndian(_page[(offset + ValueSizeOffset)..]);
        var fieldSize = flags == TreeNodeFlags.Overflow ? OverflowPointerSize : valueSize;
        if ((flags != TreeNodeFlags.Inline && flags != TreeNodeFlags.Overflow) || valueSize < 0 || keySize > Constants.MaxKeySize ||
            (flags == TreeNodeFlags.Inline && LeafNodeHeaderSize + keySize + (long)valueSize > MaxLeafNodeSize)) // long: a size near 2^31 must not wrap below the limit (soak fuzzing found it)
        {
            ThrowCorrupt(_file, _pageNumber, $"rule B2/B5: leaf node {index} has flags {flags}, key size {keySize}, value size {valueSize}");
        }

        var start = offset + LeafNodeHeaderSize + keySize;
        if (start + fieldSize > Constants.PageSize)
        {
            ThrowCorrupt(_file, _pageNumber, $"rule B4: leaf node {index} at offset {offset} ends past the page");
        }

        return _page.Slice(start, fieldSize);
    }

    /// <summary>The run page number held in an Overflow node's value field (B5: positive).</summary>
    public long GetRunPage(ReadOnlySpan<byte> valueField)
    {
        var runPage = BinaryPrimitives.ReadInt64LittleEndian(valueField);
        if (runPage <= 0)
        {
            ThrowCorrupt(_file, _pageNumber, $"rule B5: overflow run page number {runPage}");
        }

        return runPage;
    }

    /// <summary>The child page of branch node <paramref name="index"/>.</summary>
    public long GetChild(int index)
    {
        Debug.Assert(!IsLeaf, "children are read from branches only");
        var offset = NodeOffset(index);
        var child = BinaryPrimitives.ReadInt64LittleEndian(_page[(offset + ChildPageOffset)..]);
        if (child <= 0 || (TreeNodeFlags)_page[offset + FlagsOffset] != TreeNodeFlags.PageRef)
        {
            ThrowCorrupt(_file, _pageNumber, $"rule B5: branch node {index} has flags {_page[offset + FlagsOffset]} and child {child}");
        }

        return child;
    }

    /// <summary>The whole body of node <paramref name="index"/> (B2, B4 checked), for copying.</summary>
    public ReadOnlySpan<byte> GetNode(int index)
    {
        var offset = NodeOffset(index);
        int keySize = BinaryPrimitives.ReadUInt16LittleEndian(_page[offset..]);
        int size;
        if (IsLeaf)
        {
            var flags = (TreeNodeFlags)_page[offset + FlagsOffset];
            var valueSize = BinaryPrimitives.ReadInt32LittleEndian(_page[(offset + ValueSizeOffset)..]);
            var longSize = flags == TreeNodeFlags.Overflow
                ? LeafNodeHeaderSize + keySize + OverflowPointerSize
                : LeafNodeHeaderSize + keySize + (long)valueSize; // long: a size near 2^31 must not wrap below the limit
            if (valueSize < 0 || keySize > Constants.MaxKeySize || longSize > MaxLeafNodeSize)
            {
                ThrowCorrupt(_file, _pageNumber, $"rule B2: leaf node {index} has key size {keySize} and value size {valueSize}");
            }

            size = (int)longSize;
        }
        else
        {
            size = BranchNodeHeaderSize + keySize;
            if (keySize > Constants.MaxKeySize)
            {
                ThrowCorrupt(_file, _pageNumber, $"rule B2: branch node {index} has key size {keySize}");
            }
        }

        if (offset + size > Constants.PageSize)
        {
            ThrowCorrupt(_file, _pageNumber, $"rule B4: node {index} at offset {offset} is {size} bytes and ends past the page");
        }

        return _page.Slice(offset, size);
    }

    /// <summary>Leaf search: the index of <paramref name="key"/>, or the complement of where it would go.</summary>
    public int SearchLeaf(ReadOnlySpan<byte> key)
    {
        var low = 0;
        var high = Count - 1;
        while (low <= high)
        {
            var middle = (int)((uint)(low + high) >> 1);
            PrefetchNode((int)((uint)(low + middle - 1) >> 1), low <= middle - 1);
            PrefetchNode((int)((uint)(middle + 1 + high) >> 1), middle + 1 <= high);
            var comparison = CompareKeys(GetKey(middle), key);
            if (comparison == 0)
            {
                return middle;
            }

            if (comparison < 0)
            {
                low = middle + 1;
            }
            else
            {
                high = middle - 1;
            }
        }

        return ~low;
    }

    /// <summary>Branch search: the index of the child whose range holds <paramref name="key"/>
    /// (the last node whose key is &lt;= key; node 0's empty key is below every key).</summary>
    public int SearchBranch(ReadOnlySpan<byte> key)
    {
        var low = 1;
        var high = Count - 1;
        var found = 0;
        while (low <= high)
        {
            var middle = (int)((uint)(low + high) >> 1);
            if (CompareKeys(GetKey(middle), key) <= 0)
            {
                found = middle;
                low = middle + 1;
            }
            else
            {
                high = middle - 1;
            }
        }

        return found;
    }

    /// <summary>
    /// Asks the CPU for the first cache line of node <paramref name="index"/> when
    /// <paramref name="wanted"/>: SearchLeaf asks for both nodes its next step may compare while it
    /// compares this one, so the misses of a lookup's steps overlap instead of coming one after
    /// another, which pays on random point reads; SearchBranch's pages stay cached, so it does not
    /// prefetch (docs/results/2026-12-06-code-comment-measurements.md). The slot is read
    /// unchecked: a bad offset only prefetches another line of the page (the compare checks it).
    /// x86 only.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private unsafe void PrefetchNode(int index, bool wanted)
    {
        if (Sse.IsSupported && wanted)
        {
            int offset = BinaryPrimitives.ReadUInt16LittleEndian(_page[(PageHeader.Size + (index * SlotSize))..]);
            Sse.Prefetch0((byte*)Unsafe.AsPointer(ref MemoryMarshal.GetReference(_page)) + (offset & (Constants.PageSize - 1)));
        }
    }

    /// <summary>
    /// Byte-wise key order (the sign of <see cref="MemoryExtensions.SequenceCompareTo{T}(ReadOnlySpan{T}, ReadOnlySpan{T})"/>),
    /// decided by the first eight bytes read as one big-endian integer when both keys have them and
    /// they differ: the searches' probes then make no call. SequenceCompareTo, called by every
    /// probe, took a large share of random point reads
    /// (docs/results/2026-12-06-code-comment-measurements.md).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static int CompareKeys(ReadOnlySpan<byte> left, ReadOnlySpan<byte> right)
    {
        if (left.Length >= sizeof(ulong) && right.Length >= sizeof(ulong))
        {
            var a = BinaryPrimitives.ReadUInt64BigEndian(left);
            var b = BinaryPrimitives.ReadUInt64BigEndian(right);
            if (a != b)
            {
                return a < b ? -1 : 1;
            }
        }

        return left.SequenceCompareTo(right);
    }

    /// <summary>Where node <paramref name="index"/> starts (for BTree.Verify's B8 check).</summary>
    public int GetNodeOffset(int index) => NodeOffset(index);

    /// <summary>Raises the corruption error for this page.</summary>
    [DoesNotReturn]
    public void ThrowCorrupt(string reason) => ThrowCorrupt(_file, _pageNumber, reason);

    /// <summary>The slot's node offset, checked against B4's lower half (the node's end is checked by the reader).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int NodeOffset(int index)
    {
        Debug.Assert((uint)index < (uint)Count, "node index within the page");
        int offset = BinaryPrimitives.ReadUInt16LittleEndian(_page[(PageHeader.Size + (index * SlotSize))..]);
        if (offset < _upper || offset > Constants.PageSize - (IsLeaf ? LeafNodeHeaderSize : BranchNodeHeaderSize))
        {
            ThrowCorrupt(_file, _pageNumber, $"rule B4: slot {index} points at {offset}, outside the node area {_upper}..{Constants.PageSize}");
        }

        return offset;
    }

    /// <summary>Raises the corruption error for a page; kept out of line so the checks stay cheap.</summary>
    [DoesNotReturn]
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void ThrowCorrupt(string file, long pageNumber, string reason) =>
        throw new CorruptionException(file, pageNumber * Constants.PageSize, reason);
}
