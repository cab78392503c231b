using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;

namespace Voron.Testing.Processes;

/// <summary>
/// A digest of a store's whole key-value state, computed the same way from a read transaction (the
/// follow-child) and from a test's model: SHA-256 over every non-empty tree in ordinal name order,
/// each as its name and its entries in key byte order, every field length-prefixed; the first 16
/// bytes as 32 hex digits. A tree that exists but holds nothing counts as absent, as it does in the
/// model.
/// </summary>
internal static class StateDigest
{
    /// <summary>The digest of the snapshot <paramref name="read"/> sees.</summary>
    internal static string Of(ReadTransaction read)
    {
        var trees = new Dictionary<string, List<(byte[] Key, byte[] Value)>>(StringComparer.Ordinal);
        foreach (var name in read.GetTreeNames())
        {
            var entries = new List<(byte[], byte[])>();
            var iterator = read.OpenTree(name)!.Iterate();
            for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
            {
                entries.Add((iterator.Key.ToArray(), iterator.Value.ToArray()));
            }

            trees[name] = entries;
        }

        return Of(trees);
    }

    /// <summary>The digest of <paramref name="trees"/>: tree name to its entries, in any order.</summary>
    internal static string Of(IReadOnlyDictionary<string, List<(byte[] Key, byte[] Value)>> trees)
    {
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var number = new byte[4];
        foreach (var name in trees.Keys.Where(n => trees[n].Count > 0).Order(StringComparer.Ordinal))
        {
            Field(hash, number, Encoding.UTF8.GetBytes(name));
            var entries = trees[name];
            entries.Sort((a, b) => a.Key.AsSpan().SequenceCompareTo(b.Key));
            BinaryPrimitives.WriteInt32LittleEndian(number, entries.Count);
            hash.AppendData(number);
            foreach (var (key, value) in entries)
            {
                Field(hash, number, key);
                Field(hash, number, value);
            }
        }

        return Convert.ToHexString(hash.GetHashAndReset().AsSpan(0, 16));
    }

    private static void Field(IncrementalHash hash, byte[] length, ReadOnlySpan<byte> bytes)
    {
        BinaryPrimitives.WriteInt32LittleEndian(length, bytes.Length);
        hash.AppendData(length);
        hash.AppendData(bytes);
    }
}
