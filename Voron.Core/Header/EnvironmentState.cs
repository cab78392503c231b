using System.Buffers.Binary;
using Voron.Trees;

namespace Voron.Header;

// FORMAT: environment state, version 1 — 64 bytes that say where everything is as of one
// transaction. Every journal record carries the state its transaction produced (as an opaque
// blob the journal does not read), and the header file carries the state of the last transaction
// synced to the data file, so recovery ends with the state of the last valid record.
//
//   OFFSET SIZE NAME            MEANING
//   0      48   RootTree        TreeState of the root tree (the catalog of named trees)
//   48     8    NextPageNumber  pages at or above this number were never allocated; >= 1
//   56     8    FreeSpaceRoot   the free-space directory page (Allocation/FreeSpaceFormat.cs); 0 = none yet
//
// Validity: 1 <= NextPageNumber <= long.MaxValue / 8192 (its byte offset fits); RootTree.RootPage
// and FreeSpaceRoot are 0 or below NextPageNumber.

/// <summary>Where the root tree, the allocation high-water mark and the free-space map are, as of one transaction.</summary>
internal readonly record struct EnvironmentState(TreeState RootTree, long NextPageNumber, long FreeSpaceRoot)
{
    public const int Size = 64;

    /// <summary>The largest NextPageNumber: its byte offset must fit a 64-bit integer.</summary>
    public const long MaxPageNumber = long.MaxValue / Constants.PageSize;

    public static EnvironmentState Empty => new(default, 1, 0);

    public void WriteTo(Span<byte> destination)
    {
        RootTree.WriteTo(destination);
        BinaryPrimitives.WriteInt64LittleEndian(destination[48..], NextPageNumber);
        BinaryPrimitives.WriteInt64LittleEndian(destination[56..], FreeSpaceRoot);
    }

    public byte[] ToArray()
    {
        var bytes = new byte[Size];
        WriteTo(bytes);
        return bytes;
    }

    public static EnvironmentState ReadFrom(ReadOnlySpan<byte> source, string file, long offset)
    {
        if (source.Length < Size)
        {
            throw new CorruptionException(file, offset, $"environment state is {source.Length} bytes, expected {Size}");
        }

        var state = new EnvironmentState(
            TreeState.ReadFrom(source, file, offset),
            BinaryPrimitives.ReadInt64LittleEndian(source[48..]),
            BinaryPrimitives.ReadInt64LittleEndian(source[56..]));
        if (state.NextPageNumber < 1 || state.NextPageNumber > MaxPageNumber || state.RootTree.RootPage >= state.NextPageNumber ||
            state.FreeSpaceRoot < 0 || state.FreeSpaceRoot >= state.NextPageNumber)
        {
            throw new CorruptionException(file, offset, $"environment state points outside the file: {state}");
        }

        return state;
    }
}
