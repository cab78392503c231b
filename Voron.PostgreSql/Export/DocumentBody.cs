using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Voron.PostgreSql.Export;

/// <summary>
/// The data column of a document (PE5): the stored JSON, with the id property holding the
/// document's id. When the stored object has the property with that very string, its bytes go as
/// they are; when it lacks it, <c>"Id":"&lt;id&gt;",</c> is put in front of the first property;
/// only when it holds another value is the object parsed and written again.
/// </summary>
internal static class DocumentBody
{
    public static byte[] WithId(ReadOnlySpan<byte> json, string id, string? idProperty)
    {
        if (idProperty is null)
        {
            return json.ToArray();
        }

        switch (Find(json, idProperty, id))
        {
            case IdState.Same:
                return json.ToArray();
            case IdState.Missing:
                var open = json.IndexOf((byte)'{');
                var rest = json[(open + 1)..];
                var empty = IsEmptyObject(rest);
                var prefix = Encoding.UTF8.GetBytes(JsonSerializer.Serialize(idProperty) + ":" + JsonSerializer.Serialize(id) + (empty ? "" : ","));
                var result = new byte[open + 1 + prefix.Length + rest.Length];
                json[..(open + 1)].CopyTo(result);
                prefix.CopyTo(result.AsSpan(open + 1));
                rest.CopyTo(result.AsSpan(open + 1 + prefix.Length));
                return result;
            default:
                var node = JsonNode.Parse(json) as JsonObject ?? throw new InvalidOperationException($"The document '{id}' is not a JSON object.");
                node[idProperty] = id;
                return Encoding.UTF8.GetBytes(node.ToJsonString());
        }
    }

    private enum IdState
    {
        Missing,
        Same,
        Other,
    }

    private static IdState Find(ReadOnlySpan<byte> json, string idProperty, string id)
    {
        var reader = new Utf8JsonReader(json);
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            return IdState.Other; // parsed (and refused) in WithId: a stored document is an object
        }

        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            var isId = reader.ValueTextEquals(idProperty);
            reader.Read();
            if (isId)
            {
                return reader.TokenType == JsonTokenType.String && reader.ValueTextEquals(id) ? IdState.Same : IdState.Other;
            }

            reader.Skip();
        }

        return IdState.Missing;
    }

    private static bool IsEmptyObject(ReadOnlySpan<byte> afterOpen)
    {
        foreach (var b in afterOpen)
        {
            if (b is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n')
            {
                continue;
            }

            return b == (byte)'}';
        }

        return false;
    }
}
