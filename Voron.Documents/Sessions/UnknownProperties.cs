using System.Text.Json;
using Voron.Documents.Serialization;

namespace Voron.Documents.Sessions;

/// <summary>
/// The rule for JSON a document type does not model (S2 in DocumentSession.cs): when a loaded
/// entity changed, the session writes its serialization followed by the stored document's
/// top-level properties the type does not declare, byte for byte, in their stored order. A type
/// with a <c>[JsonExtensionData]</c> member keeps them itself, so nothing is added for it; so do
/// properties the serialization wrote already (a custom converter). Properties inside nested
/// objects are written as the nested type serializes them: give the nested type an extension-data
/// member to keep theirs.
/// </summary>
internal static class UnknownProperties
{
    /// <summary><paramref name="typedJson"/> with the properties of <paramref name="storedJson"/> that <paramref name="type"/> does not declare appended; <paramref name="typedJson"/> itself when there are none.</summary>
    public static byte[] Keep(byte[] typedJson, ReadOnlySpan<byte> storedJson, DocumentType type)
    {
        if (type.HasExtensionData || storedJson.IsEmpty)
        {
            return typedJson;
        }

        var written = TopLevelNames(typedJson);
        List<Range>? kept = null;
        var reader = new Utf8JsonReader(storedJson);
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            return typedJson; // not an object (the store never holds one): nothing to keep
        }

        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            var start = (int)reader.TokenStartIndex;
            var name = reader.GetString()!;
            reader.Read();
            reader.Skip();
            if (!type.Declares(name) && !written.Contains(name))
            {
                (kept ??= []).Add(new Range(start, (int)reader.BytesConsumed));
            }
        }

        if (kept == null)
        {
            return typedJson;
        }

        // typedJson is one JSON object: "{" ... "}" (checked before this is called); append before its "}".
        var end = typedJson.AsSpan().LastIndexOf((byte)'}');
        var empty = written.Count == 0;
        var output = new List<byte>(typedJson.Length + storedJson.Length);
        output.AddRange(typedJson.AsSpan(0, end));
        foreach (var range in kept)
        {
            if (!empty)
            {
                output.Add((byte)',');
            }

            output.AddRange(storedJson[range]);
            empty = false;
        }

        output.AddRange(typedJson.AsSpan(end));
        return [.. output];
    }

    private static HashSet<string> TopLevelNames(ReadOnlySpan<byte> json)
    {
        var names = new HashSet<string>(StringComparer.Ordinal);
        var reader = new Utf8JsonReader(json);
        reader.Read();
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            names.Add(reader.GetString()!);
            reader.Read();
            reader.Skip();
        }

        return names;
    }
}
