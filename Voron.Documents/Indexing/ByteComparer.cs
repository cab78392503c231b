namespace Voron.Documents.Indexing;

/// <summary>Orders byte arrays as the store orders keys: unsigned bytes, then length.</summary>
internal sealed class ByteComparer : IComparer<byte[]>, IEqualityComparer<byte[]>
{
    public static readonly ByteComparer Instance = new();

    public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);

    public bool Equals(byte[]? x, byte[]? y) => x.AsSpan().SequenceEqual(y);

    public int GetHashCode(byte[] obj)
    {
        var hash = new HashCode();
        hash.AddBytes(obj);
        return hash.ToHashCode();
    }
}
