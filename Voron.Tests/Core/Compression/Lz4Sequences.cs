namespace Voron.Tests.Core.Compression;

/// <summary>
/// Writes LZ4 blocks sequence by sequence, so tests can build exactly the block they mean —
/// valid ones that reach particular decoder paths, and malformed ones.
/// </summary>
internal sealed class Lz4Sequences
{
    private readonly List<byte> _bytes = [];

    public byte[] ToArray() => [.. _bytes];

    /// <summary>A sequence: <paramref name="literals"/>, then a match of <paramref name="matchLength"/> bytes (>= 4) at <paramref name="offset"/>.</summary>
    public Lz4Sequences Sequence(ReadOnlySpan<byte> literals, int offset, int matchLength)
    {
        var matchCode = matchLength - 4;
        _bytes.Add((byte)((Math.Min(literals.Length, 15) << 4) | Math.Min(matchCode, 15)));
        AddLength(literals.Length);
        _bytes.AddRange(literals);
        _bytes.Add((byte)offset);
        _bytes.Add((byte)(offset >> 8));
        AddLength(matchCode);
        return this;
    }

    /// <summary>The last sequence: literals only.</summary>
    public Lz4Sequences Last(ReadOnlySpan<byte> literals)
    {
        _bytes.Add((byte)(Math.Min(literals.Length, 15) << 4));
        AddLength(literals.Length);
        _bytes.AddRange(literals);
        return this;
    }

    /// <summary>Bytes as they are, for blocks no encoder would write.</summary>
    public Lz4Sequences Raw(params byte[] bytes)
    {
        _bytes.AddRange(bytes);
        return this;
    }

    private void AddLength(int length)
    {
        if (length < 15)
        {
            return;
        }

        var rest = length - 15;
        while (rest >= 255)
        {
            _bytes.Add(255);
            rest -= 255;
        }

        _bytes.Add((byte)rest);
    }
}
