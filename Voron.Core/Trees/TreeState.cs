using System.Buffers.Binary;

namespace Voron.Trees;

// FORMAT: tree state, version 1 — 48 bytes that describe one tree. Stored as the value of the
// tree's entry in the root tree (the catalog of named trees), and for the root tree itself in
// the environment state (Header/EnvironmentState.cs) that the header file and every journal
// record carry.
//
//   OFFSET SIZE NAME           MEANING
//   0      8    RootPage       page number of the root; 0 = the tree is empty
//   8      4    Depth          levels from root to leaf; 0 when empty, 1 = the root is a leaf
//   12     4    Reserved       zero
//   16     8    EntryCount     number of keys
//   24     8    LeafPages      leaf pages in the tree
//   32     8    BranchPages    branch pages in the tree
//   40     8    OverflowPages  pages in overflow runs owned by the tree's values
//
// Validity: RootPage is 0 iff Depth is 0 iff EntryCount is 0; counts are non-negative; Depth is
// at most MaxDepth (64): every branch has two children or more and a store holds fewer than 2^51
// pages, so no real tree is deeper than 51 levels, and a larger on-disk depth would size the
// descent's path buffers and bound its loops.

/// <summary>The persistent description of one tree. A value type: a transaction edits its own copy.</summary>
internal record struct TreeState(long RootPage, int Depth, long EntryCount, long LeafPages, long BranchPages, long OverflowPages)
{
    public const int Size = 48;

    /// <summary>The deepest tree a store can hold (see the FORMAT block): a deeper state is corrupt.</summary>
    public const int MaxDepth = 64;

    public readonly void WriteTo(Span<byte> destination)
    {
        destination[..Size].Clear();
        BinaryPrimitives.WriteInt64LittleEndian(destination, RootPage);
        BinaryPrimitives.WriteInt32LittleEndian(destination[8..], Depth);
        BinaryPrimitives.WriteInt64LittleEndian(destination[16..], EntryCount);
        BinaryPrimitives.WriteInt64LittleEndian(destination[24..], LeafPages);
        BinaryPrimitives.WriteInt64LittleEndian(destination[32..], BranchPages);
        BinaryPrimitives.WriteInt64LittleEndian(destination[40..], OverflowPages);
    }

    /// <summary>Reads and validates a state; <paramref name="file"/> and <paramref name="offset"/> name where it came from for the corruption error.</summary>
    public static TreeState ReadFrom(ReadOnlySpan<byte> source, string file, long offset)
    {
        if (source.Length < Size)
        {
            throw new CorruptionException(file, offset, $"tree state is {source.Length} bytes, expected {Size}");
        }

        var state = new TreeState(
            BinaryPrimitives.ReadInt64LittleEndian(source),
            BinaryPrimitives.ReadInt32LittleEndian(source[8..]),
            BinaryPrimitives.ReadInt64LittleEndian(source[16..]),
            BinaryPrimitives.ReadInt64LittleEndian(source[24..]),
            BinaryPrimitives.ReadInt64LittleEndian(source[32..]),
            BinaryPrimitives.ReadInt64LittleEndian(source[40..]));
        var empty = state.RootPage == 0;
        if (state.RootPage < 0 || state.Depth < 0 || state.Depth > MaxDepth || state.EntryCount < 0 || state.LeafPages < 0 || state.BranchPages < 0 ||
            state.OverflowPages < 0 || empty != (state.Depth == 0) || (empty && state.EntryCount != 0))
        {
            throw new CorruptionException(file, offset, $"tree state is inconsistent: {state}");
        }

        return state;
    }
}
