using System.Globalization;
using System.Text;
using System.Text.Json;
using Voron.Documents.Indexing;
using Voron.Documents.Serialization;

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
    /// SD5: sets each path of <paramref name="sets"/>, in order, in the JSON object
    /// <paramref name="json"/> as SQLite's json_set does, writing only the bytes of the values set:
    /// an existing member's value (the first member of that name where a name repeats, the one
    /// json_extract reads) is replaced in place; a missing member is added after the object's last
    /// member, with the objects the rest of the path needs. Every other byte is kept (whitespace,
    /// escapes, number forms, repeated members). NULL writes JSON null. Throws
    /// <see cref="ArgumentException"/> for a value JSON cannot hold (a blob, an infinity) and for a
    /// path that runs through a member that is not an object (json_set writes nothing there).
    /// </summary>
    public static byte[] SetPaths(byte[] json, IReadOnlyList<(JsonPath Path, SqlValue Value)> sets)
    {
        foreach (var (path, value) in sets)
        {
            json = SetPath(json, path, ValueJson(value, path));
        }

        return json;
    }

    private static byte[] SetPath(byte[] json, JsonPath path, byte[] value)
    {
        var reader = new Utf8JsonReader(json, JsonValidation.Options);
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            throw new ArgumentException("The document is not a JSON object.");
        }

        var segments = path.Segments;
        for (var s = 0; ; s++)
        {
            var open = (int)reader.TokenStartIndex; // the object's '{'
            var lastEnd = -1; // just after the last member's value
            var found = false;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var match = reader.ValueTextEquals(segments[s].Name);
                reader.Read();
                if (match)
                {
                    found = true;
                    break;
                }

                reader.Skip();
                lastEnd = (int)reader.BytesConsumed;
            }

            if (!found)
            {
                var at = lastEnd < 0 ? open + 1 : lastEnd;
                var result = Splice(json, at, at, Member(segments, s, value, comma: lastEnd >= 0));
                if (s < segments.Count - 1)
                {
                    JsonValidation.ValidateObject(result, null); // the objects added must not nest deeper than a document may
                }

                return result;
            }

            if (s == segments.Count - 1)
            {
                var start = (int)reader.TokenStartIndex;
                reader.Skip();
                return Splice(json, start, (int)reader.BytesConsumed, value);
            }

            if (reader.TokenType != JsonTokenType.StartObject)
            {
                throw new ArgumentException($"The JSON path '$.{path.Text}' runs through '{segments[s].NameText}', which is not an object.");
            }
        }
    }

    private static byte[] Splice(byte[] json, int start, int end, ReadOnlySpan<byte> insert)
    {
        var result = new byte[json.Length - (end - start) + insert.Length];
        json.AsSpan(0, start).CopyTo(result);
        insert.CopyTo(result.AsSpan(start));
        json.AsSpan(end).CopyTo(result.AsSpan(start + insert.Length));
        return result;
    }

    /// <summary>The member for segments[<paramref name="from"/>..]: "name":{"next":...value...}, after a comma when the object has members.</summary>
    private static byte[] Member(IReadOnlyList<JsonPathSegment> segments, int from, byte[] value, bool comma)
    {
        var text = new List<byte>(value.Length + 32);
        if (comma)
        {
            text.Add((byte)',');
        }

        for (var i = from; i < segments.Count; i++)
        {
            if (i > from)
            {
                text.Add((byte)'{');
            }

            AppendString(text, segments[i].NameText!);
            text.Add((byte)':');
        }

        text.AddRange(value);
        for (var i = from + 1; i < segments.Count; i++)
        {
            text.Add((byte)'}');
        }

        return [.. text];
    }

    /// <summary>A SQL value as the JSON text json_set writes for it: null, an integer, a real as SQLite prints it, a string.</summary>
    private static byte[] ValueJson(SqlValue value, JsonPath path)
    {
        switch (value.Kind)
        {
            case SqlKind.Null:
                return "null"u8.ToArray();
            case SqlKind.Integer:
                return Encoding.ASCII.GetBytes(value.Integer.ToString(CultureInfo.InvariantCulture));
            case SqlKind.Real when double.IsFinite(value.Real):
                return Encoding.ASCII.GetBytes(SqlValue.RealText(value.Real));
            case SqlKind.Real:
                throw new ArgumentException($"JSON cannot hold {SqlValue.RealText(value.Real)} (for '$.{path.Text}').");
            case SqlKind.Text:
                var text = new List<byte>(value.Bytes!.Length + 2);
                AppendString(text, value.Text); // decoded and encoded again: bytes SQLite holds that are not UTF-8 become U+FFFD
                return [.. text];
            default:
                throw new ArgumentException($"A BLOB cannot be stored in JSON (for '$.{path.Text}'); store text or a number.");
        }
    }

    /// <summary>
    /// A JSON string as SQLite's json functions write one: the characters as UTF-8, with only '"',
    /// '\' and the control characters below U+0020 escaped (\b \t \n \f \r, else \u00xx).
    /// </summary>
    private static void AppendString(List<byte> output, string text)
    {
        output.Add((byte)'"');
        foreach (var b in Encoding.UTF8.GetBytes(text))
        {
            switch (b)
            {
                case (byte)'"':
                    output.AddRange("\\\""u8);
                    break;
                case (byte)'\\':
                    output.AddRange("\\\\"u8);
                    break;
                case (byte)'\b':
                    output.AddRange("\\b"u8);
                    break;
                case (byte)'\t':
                    output.AddRange("\\t"u8);
                    break;
                case (byte)'\n':
                    output.AddRange("\\n"u8);
                    break;
                case (byte)'\f':
                    output.AddRange("\\f"u8);
                    break;
                case (byte)'\r':
                    output.AddRange("\\r"u8);
                    break;
                case < 0x20:
                    output.AddRange(Encoding.ASCII.GetBytes("\\u" + b.ToString("x4", CultureInfo.InvariantCulture)));
                    break;
                default:
                    output.Add(b);
                    break;
            }
        }

        output.Add((byte)'"');
    }

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
