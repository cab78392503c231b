using System.Text;

namespace Voron.Documents.Indexing;

/// <summary>One step of a <see cref="JsonPath"/>: a property by name, or each element of an array.</summary>
internal readonly record struct JsonPathSegment(byte[]? Name, string? NameText)
{
    public static JsonPathSegment Each => default;

    public bool IsEach => Name == null;

    public static JsonPathSegment Property(string name) => new(Encoding.UTF8.GetBytes(name), name);
}
