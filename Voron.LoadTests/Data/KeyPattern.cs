using System.Buffers.Binary;

namespace Voron.LoadTests.Data;

/// <summary>
/// How concurrent writers pick their 8-byte keys, as a function of (writer, sequence) so that
/// every engine and mode gets exactly the same keys in the same order.
/// <list type="bullet">
/// <item><see cref="Sequential"/>: the sequence number, then the writer (big-endian): every write
///   lands at the right edge of the tree, the best case for every B-tree and for page diffs.</item>
/// <item><see cref="Random"/>: a 64-bit mix of (writer, sequence): uniform over the key space, so
///   each write touches a leaf of its own once the tree is large.</item>
/// </list>
/// </summary>
internal sealed class KeyPattern
{
    public static readonly KeyPattern Sequential = new("sequential", random: false);
    public static readonly KeyPattern Random = new("random", random: true);

    public static readonly KeyPattern[] All = [Sequential, Random];

    private readonly bool _random;

    private KeyPattern(string name, bool random)
    {
        Name = name;
        _random = random;
    }

    public string Name { get; }

    public static KeyPattern Parse(string name) =>
        All.FirstOrDefault(p => p.Name == name) ?? throw new ArgumentException($"Unknown key pattern '{name}'.", nameof(name));

    /// <summary>The key of <paramref name="writer"/>'s <paramref name="sequence"/>-th write.</summary>
    public byte[] Key(int writer, long sequence)
    {
        var key = new byte[8];
        if (_random)
        {
            BinaryPrimitives.WriteUInt64BigEndian(key, Mix(((ulong)(uint)writer << 40) ^ (ulong)sequence));
        }
        else
        {
            BinaryPrimitives.WriteInt32BigEndian(key, (int)sequence);
            BinaryPrimitives.WriteInt32BigEndian(key.AsSpan(4), writer);
        }

        return key;
    }

    /// <summary>SplitMix64's finalizer: a bijection of 64-bit values, so distinct inputs give distinct keys.</summary>
    private static ulong Mix(ulong value)
    {
        value += 0x9E3779B97F4A7C15UL;
        value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9UL;
        value = (value ^ (value >> 27)) * 0x94D049BB133111EBUL;
        return value ^ (value >> 31);
    }

    public override string ToString() => Name;
}
