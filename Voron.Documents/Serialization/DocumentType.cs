using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text.Json.Serialization.Metadata;
using Voron.Documents.Storage;

namespace Voron.Documents.Serialization;

/// <summary>
/// What the store needs to know about a document type, from its <see cref="JsonTypeInfo"/>: its
/// collection (<see cref="DocumentCollectionAttribute"/>, else the type's name) and its id member
/// (a serialized string property named <c>Id</c>, read and written through the serializer's own
/// accessors, so source-generated metadata suffices).
/// </summary>
internal sealed class DocumentType
{
    private static readonly ConditionalWeakTable<JsonTypeInfo, DocumentType> Cache = new();

    private DocumentType(JsonTypeInfo typeInfo)
    {
        if (typeInfo.Kind != JsonTypeInfoKind.Object)
        {
            throw new NotSupportedException($"{typeInfo.Type.Name} is serialized as a JSON {typeInfo.Kind}, not an object; a document type must serialize as a JSON object.");
        }

        if (typeInfo.Type.IsValueType)
        {
            throw new NotSupportedException($"{typeInfo.Type.Name} is a value type; document types are classes (or records), so a session can track them by reference.");
        }

        TypeInfo = typeInfo;
        Collection = CollectionOf(typeInfo.Type);
        CollectionBytes = DocumentNames.CollectionBytes(Collection);
        IdProperty = typeInfo.Properties.FirstOrDefault(IsIdProperty);
        HasExtensionData = typeInfo.Properties.Any(p => p.IsExtensionData);
        _declared = new HashSet<string>(
            typeInfo.Properties.Where(p => !p.IsExtensionData).Select(p => p.Name),
            typeInfo.Options.PropertyNameCaseInsensitive ? StringComparer.OrdinalIgnoreCase : StringComparer.Ordinal);
    }

    private readonly HashSet<string> _declared;

    /// <summary>Whether the type keeps the JSON properties it does not declare itself (a <c>[JsonExtensionData]</c> member).</summary>
    public bool HasExtensionData { get; }

    /// <summary>Whether <paramref name="jsonName"/> is a JSON property the type declares (as the serializer matches names on read).</summary>
    public bool Declares(string jsonName) => _declared.Contains(jsonName);

    public JsonTypeInfo TypeInfo { get; }

    public string Collection { get; }

    public byte[] CollectionBytes { get; }

    /// <summary>The id member, or null when the type has none (ids are then given or generated, and kept by the session).</summary>
    public JsonPropertyInfo? IdProperty { get; }

    public static DocumentType For(JsonTypeInfo typeInfo)
    {
        ArgumentNullException.ThrowIfNull(typeInfo);
        return Cache.GetValue(typeInfo, static t => new DocumentType(t));
    }

    public static bool IsIdProperty(JsonPropertyInfo property) =>
        property.PropertyType == typeof(string) && property.Get != null &&
        ((property.AttributeProvider as MemberInfo)?.Name == "Id" || string.Equals(property.Name, "id", StringComparison.OrdinalIgnoreCase));

    /// <summary>The id the entity carries, or null.</summary>
    public string? GetId(object entity) => IdProperty?.Get!(entity) as string;

    /// <summary>Writes <paramref name="id"/> into the entity's id member, when it has a settable one (the document's key wins over what its JSON says).</summary>
    public void SetId(object entity, string id)
    {
        if (IdProperty?.Set is { } set)
        {
            set(entity, id);
        }
    }

    /// <summary>The collection of a CLR type: <see cref="DocumentCollectionAttribute"/>, else its name without generic arity.</summary>
    public static string CollectionOf(Type type)
    {
        if (type.GetCustomAttribute<DocumentCollectionAttribute>(inherit: false) is { } attribute)
        {
            return attribute.Name;
        }

        var name = type.Name;
        var tick = name.IndexOf('`', StringComparison.Ordinal);
        return tick < 0 ? name : name[..tick];
    }
}
