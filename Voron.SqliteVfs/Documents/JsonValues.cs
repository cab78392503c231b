using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;
using Voron.Documents.Indexing;

namespace Voron.SqliteVfs.Documents;

/// <summary>
/// JSON paths as SQL values (SD2 in DocsTable.cs): a path column reads what SQLite's
/// <c>json_extract(body, path)</c> returns, and writing one sets the path in the body.
/// </summary>
internal static class JsonValues
{
    /// <summary>
    /// json_extract's answer: a string as TEXT, an integer (no fraction or exponent, within int64)
    /// as INTEGER, any other number as REAL, true/false as 1/0, null or missing as NULL, an object or
    /// array as its JSON text without insignificant whitespace.
    /// </summary>
    public static SqlValue Extract(ReadOnlySpan<byte> json, JsonPath path)
    {
        var reader = new Utf8JsonReader(json, new JsonReaderOptions { MaxDepth = 256 });
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            return SqlValue.Null;
        }

        for (var s = 0; s < path.Segments.Count; s++)
        {
            var segment = path.Segments[s];
            if (segment.IsEach)
            {
                return SqlValue.Null;
            }

            var found = false;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var match = reader.ValueTextEquals(segment.Name);
                reader.Read();
                if (match)
                {
                    found = true;
                    break;
                }

                reader.Skip();
            }

            if (!found)
            {
                return SqlValue.Null;
            }

            if (s < path.Segments.Count - 1 && reader.TokenType != JsonTokenType.StartObject)
            {
                return SqlValue.Null;
            }
        }

        return Value(ref reader, json);
    }

    /// <summary>The value the reader is on, as json_extract gives it.</summary>
    private static SqlValue Value(ref Utf8JsonReader reader, ReadOnlySpan<byte> json)
    {
        switch (reader.TokenType)
        {
            case JsonTokenType.String:
                return reader.ValueIsEscaped ? SqlValue.FromText(reader.GetString()!) : SqlValue.FromUtf8(reader.ValueSpan);
            case JsonTokenType.Number:
                var raw = reader.ValueSpan;
                if (raw.IndexOfAny((byte)'.', (byte)'e', (byte)'E') < 0 && reader.TryGetInt64(out var integer))
                {
                    return SqlValue.FromInteger(integer);
                }

                return SqlValue.FromReal(reader.GetDouble());
            case JsonTokenType.True:
                return SqlValue.FromInteger(1);
            case JsonTokenType.False:
                return SqlValue.FromInteger(0);
            case JsonTokenType.StartObject:
            case JsonTokenType.StartArray:
                var start = (int)reader.TokenStartIndex;
                reader.Skip();
                return SqlValue.FromUtf8(Minify(json[start..(int)reader.BytesConsumed]));
            default:
                return SqlValue.Null;
        }
    }

    /// <summary>The JSON text without whitespace outside strings (escapes kept as written): the export's minifier (Voron.Documents/Export/JsonLineText.cs).</summary>
    public static byte[] Minify(ReadOnlySpan<byte> json)
    {
        var output = new byte[json.Length];
        return output[..Voron.Documents.Export.JsonLineText.Minify(json, output)];
    }

    /// <summary>
    /// SD5: sets each path of <paramref name="sets"/> in the JSON object <paramref name="json"/>,
    /// creating the objects on the way; NULL writes JSON null. Throws <see cref="ArgumentException"/>
    /// for a value JSON cannot hold (a blob) or a path that runs through a value that is not an object.
    /// </summary>
    public static byte[] SetPaths(ReadOnlySpan<byte> json, IReadOnlyList<(JsonPath Path, SqlValue Value)> sets)
    {
        var root = JsonNode.Parse(json)!.AsObject();
        foreach (var (path, value) in sets)
        {
            var node = root;
            for (var i = 0; i < path.Segments.Count - 1; i++)
            {
                var name = path.Segments[i].NameText!;
                var next = node[name];
                if (next == null)
                {
                    next = new JsonObject();
                    node[name] = next;
                }
                else if (next is not JsonObject)
                {
                    throw new ArgumentException($"The JSON path '$.{path.Text}' runs through '{name}', which is not an object.");
                }

                node = next.AsObject();
            }

            node[path.Segments[^1].NameText!] = ToNode(value, path);
        }

        using var buffer = new MemoryStream(json.Length + 64);
        using (var writer = new Utf8JsonWriter(buffer, new JsonWriterOptions { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
        {
            root.WriteTo(writer);
        }

        return buffer.ToArray();
    }

    private static JsonNode? ToNode(SqlValue value, JsonPath path) => value.Kind switch
    {
        SqlKind.Null => null,
        SqlKind.Integer => JsonValue.Create(value.Integer),
        SqlKind.Real when double.IsFinite(value.Real) => JsonNode.Parse(SqlValue.RealText(value.Real).Replace("E+", "E", StringComparison.Ordinal)),
        SqlKind.Real => throw new ArgumentException($"JSON cannot hold {value.Real} (for '$.{path.Text}')."),
        SqlKind.Text => JsonValue.Create(value.Text),
        _ => throw new ArgumentException($"A BLOB cannot be stored in JSON (for '$.{path.Text}'); store text or a number."),
    };

    /// <summary>
    /// SQLite's column affinity applied to a value written to a path column declared with
    /// <paramref name="affinity"/> (as a table column would store it): numeric affinities turn
    /// number-looking text into a number (REAL: integers into reals), TEXT turns numbers into text.
    /// </summary>
    public static SqlValue ApplyAffinity(SqlValue value, ColumnAffinity affinity)
    {
        switch (affinity)
        {
            case ColumnAffinity.Text when value.IsNumeric:
                return SqlValue.FromText(value.Kind == SqlKind.Integer ? value.Integer.ToString(CultureInfo.InvariantCulture) : SqlValue.RealText(value.Real));
            case ColumnAffinity.Integer or ColumnAffinity.Numeric or ColumnAffinity.Real when value.Kind == SqlKind.Text:
                var text = value.Text.Trim();
                if (long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var integer))
                {
                    return affinity == ColumnAffinity.Real ? SqlValue.FromReal(integer) : SqlValue.FromInteger(integer);
                }

                if (double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var real) && double.IsFinite(real))
                {
                    return affinity != ColumnAffinity.Real && real == Math.Floor(real) && Math.Abs(real) < 9.2e18 ? SqlValue.FromInteger((long)real) : SqlValue.FromReal(real);
                }

                return value;
            case ColumnAffinity.Real when value.Kind == SqlKind.Integer:
                return SqlValue.FromReal(value.Integer);
            case ColumnAffinity.Integer or ColumnAffinity.Numeric when value.Kind == SqlKind.Real && value.Real == Math.Floor(value.Real) && Math.Abs(value.Real) < 9.2e18:
                return SqlValue.FromInteger((long)value.Real);
            default:
                return value;
        }
    }
}
