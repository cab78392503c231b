namespace Voron.Tests.Core.Trees;

/// <summary>Orders byte arrays as the tree orders keys: unsigned bytes, then length.</summary>
internal sealed class ByteArrayComparer : IComparer<byte[]>
{
    public static readonly ByteArrayComparer Instance = new();

    public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
}
