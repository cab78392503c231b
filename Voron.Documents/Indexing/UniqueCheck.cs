using System.Text;

namespace Voron.Documents.Indexing;

/// <summary>The unique-index rule: no entry with the same values for another document; a value tuple with a null (or missing) value is exempt.</summary>
internal static class UniqueCheck
{
    /// <summary>Throws <see cref="UniqueConstraintException"/> when <paramref name="tree"/> holds <paramref name="key"/>'s values for another id.</summary>
    public static void Ensure(Tree tree, IndexRuntime index, ReadOnlySpan<byte> key, ReadOnlySpan<byte> id, string idText)
    {
        var valuesLength = key.Length - id.Length;
        var values = key[..valuesLength];
        for (var rest = values; !rest.IsEmpty;)
        {
            if (rest[0] == IndexKey.Null)
            {
                return;
            }

            rest = rest[IndexKey.ValueLength(rest)..];
        }

        var iterator = tree.Iterate();
        for (var more = iterator.SeekPrefix(values); more && iterator.Key.StartsWith(values); more = iterator.MoveNext())
        {
            var other = iterator.Key[valuesLength..];
            if (!other.SequenceEqual(id))
            {
                throw new UniqueConstraintException(index.Definition.Collection, index.Name,
                    IndexKey.DescribeValues(values, index.ComponentCount), idText, Encoding.UTF8.GetString(other));
            }
        }
    }
}
