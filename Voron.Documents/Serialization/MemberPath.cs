using System.Text.Json.Serialization.Metadata;

namespace Voron.Documents.Serialization;

/// <summary>A CLR member chain resolved to the JSON path the serializer writes it at.</summary>
/// <param name="Path">The JSON path (Indexing/JsonPath syntax).</param>
/// <param name="ClrType">The member's type; for a collection, the collection's type.</param>
/// <param name="TypeInfo">The serializer's metadata for <paramref name="ClrType"/>.</param>
/// <param name="IsId">Whether the member is the document's id member.</param>
/// <param name="ElementTypeInfo">For a collection member: its elements' metadata; null otherwise.</param>
internal sealed record MemberPath(string Path, Type ClrType, JsonTypeInfo TypeInfo, bool IsId, JsonTypeInfo? ElementTypeInfo)
{
    public bool IsCollection => ElementTypeInfo != null;
}
