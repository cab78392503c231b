using System.Text.Json;
using Voron.Documents.Serialization;

namespace Voron.Documents.Export;

/// <summary>
/// Byte-level JSON helpers of export and import, over JSON already known to be valid (a stored
/// document, or an import line <see cref="JsonValidation.ValidateObject"/> accepted): minifying,
/// escaping a UTF-8 string, and taking the top-level <c>@metadata</c> property out of an object.
/// </summary>
internal static class JsonLineText
{
    /// <summary>The property export adds and import takes out.</summary>
    public static ReadOnlySpan<byte> MetadataName => "@metadata"u8;

    /// <summary>The most bytes <see cref="WriteString"/> writes for <paramref name="utf8Length"/> bytes of text.</summary>
    public static int MaxStringLength(int utf8Length) => 2 + (6 * utf8Length);

    /// <summary>
    /// Writes <paramref name="utf8"/> (valid UTF-8) as a JSON string: quotes, backslashes and
    /// control characters escaped, everything else (non-ASCII included) as it is. Returns the bytes written.
    /// </summary>
    public static int WriteString(ReadOnlySpan<byte> utf8, Span<byte> destination)
    {
        var w = 0;
        destination[w++] = (byte)'"';
        foreach (var b in utf8)
        {
            if (b == (byte)'"' || b == (byte)'\\')
            {
                destination[w++] = (byte)'\\';
                destination[w++] = b;
            }
            else if (b < 0x20)
            {
                destination[w++] = (byte)'\\';
                destination[w++] = (byte)'u';
                destination[w++] = (byte)'0';
                destination[w++] = (byte)'0';
                destination[w++] = Hex(b >> 4);
                destination[w++] = Hex(b & 0xF);
            }
            else
            {
                destination[w++] = b;
            }
        }

        destination[w++] = (byte)'"';
        return w;
    }

    /// <summary>
    /// Whether a stored body must be minified before it can be one line: it has a line break
    /// between tokens (strings cannot hold a raw one, JV3) or whitespace around the object.
    /// </summary>
    public static bool NeedsMinify(ReadOnlySpan<byte> json) =>
        json.Length < 2 || json[0] != (byte)'{' || json[^1] != (byte)'}' || json.IndexOfAny((byte)'\n', (byte)'\r') >= 0;

    /// <summary>Copies valid JSON without the whitespace between its tokens; returns the bytes written (at most the input's length).</summary>
    public static int Minify(ReadOnlySpan<byte> json, Span<byte> destination)
    {
        var w = 0;
        var inString = false;
        var escaped = false;
        foreach (var b in json)
        {
            if (inString)
            {
                destination[w++] = b;
                if (escaped)
                {
                    escaped = false;
                }
                else if (b == (byte)'\\')
                {
                    escaped = true;
                }
                else if (b == (byte)'"')
                {
                    inString = false;
                }
            }
            else if (b is not ((byte)' ' or (byte)'\t' or (byte)'\n' or (byte)'\r'))
            {
                destination[w++] = b;
                inString = b == (byte)'"';
            }
        }

        return w;
    }

    /// <summary>
    /// Whether the object may have a property named <c>@metadata</c>: its name, raw or escaped,
    /// starts with <c>"@</c> or <c>"\u0040</c>. False is certain; true is checked by <see cref="WithoutMetadata"/>.
    /// </summary>
    public static bool MayHaveMetadata(ReadOnlySpan<byte> json) =>
        json.IndexOf("\"@"u8) >= 0 || json.IndexOf("\\u0040"u8) >= 0;

    /// <summary>Whether the object <paramref name="json"/> (starting with '{', ending with '}') has a property.</summary>
    public static bool HasProperties(ReadOnlySpan<byte> json)
    {
        var inner = json[1..^1].TrimEnd(" \t\r\n"u8);
        return !inner.IsEmpty;
    }

    /// <summary>
    /// Copies the object <paramref name="json"/> without its top-level <c>@metadata</c>
    /// properties into <paramref name="destination"/> (at least as long as the input); every
    /// other byte is kept as it is, whitespace between the properties included (XP3), so that a
    /// line the export wrote imports as the body it was written from. Reads the <c>@metadata</c>
    /// it meets into <paramref name="metadata"/> (its <c>@id</c> and <c>@collection</c> as strings
    /// when <paramref name="readStrings"/>). Returns the bytes written.
    /// </summary>
    /// <remarks>
    /// Which comma goes with a removed property (XP3): the one before it when a kept property
    /// precedes it, with the whitespace between that comma and the property (the whitespace
    /// before the comma stays); else the separator after it (whitespace, comma, whitespace).
    /// </remarks>
    public static int WithoutMetadata(ReadOnlySpan<byte> json, Span<byte> destination, bool readStrings, out ImportMetadata metadata)
    {
        metadata = default;
        var reader = new Utf8JsonReader(json, JsonValidation.Options);
        reader.Read(); // the StartObject the caller checked
        var w = 0;
        var from = (int)reader.TokenStartIndex; // json[..from] is decided: copied or dropped (whitespace before the object is)
        var previousEnd = from + 1; // where the previous property's value ends (just past '{' before the first)
        var keptAny = false;
        var dropNextSeparator = false;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            var start = (int)reader.TokenStartIndex;
            var isMetadata = reader.ValueTextEquals(MetadataName);
            reader.Read();
            if (isMetadata)
            {
                metadata.Count++;
                ReadMetadata(ref reader, readStrings, ref metadata);
            }
            else
            {
                reader.Skip();
            }

            var end = (int)reader.BytesConsumed;
            if (dropNextSeparator)
            {
                from = start; // the separator after a removed leading property
                dropNextSeparator = false;
            }

            if (!isMetadata)
            {
                keptAny = true;
            }
            else if (keptAny)
            {
                var comma = previousEnd + json[previousEnd..start].IndexOf((byte)',');
                w += Copy(json[from..comma], destination[w..]);
                from = end;
            }
            else
            {
                w += Copy(json[from..start], destination[w..]);
                from = end;
                dropNextSeparator = true;
            }

            previousEnd = end;
        }

        w += Copy(json[from..(int)reader.BytesConsumed], destination[w..]); // up to the closing brace: whitespace after the object is not the document's
        return w;
    }

    private static int Copy(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        source.CopyTo(destination);
        return source.Length;
    }

    private static void ReadMetadata(ref Utf8JsonReader reader, bool readStrings, ref ImportMetadata metadata)
    {
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            metadata.NotAnObject = true;
            reader.Skip();
            return;
        }

        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            var isId = reader.ValueTextEquals("@id"u8);
            var isCollection = !isId && reader.ValueTextEquals("@collection"u8);
            reader.Read();
            if (isId || isCollection)
            {
                var value = reader.TokenType == JsonTokenType.String && readStrings ? reader.GetString() : null;
                var isString = reader.TokenType == JsonTokenType.String;
                if (isId)
                {
                    metadata.IdCount++;
                    metadata.IdIsString = isString;
                    metadata.Id = value;
                }
                else
                {
                    metadata.CollectionCount++;
                    metadata.CollectionIsString = isString;
                    metadata.Collection = value;
                }
            }

            reader.Skip();
        }
    }

    private static byte Hex(int nibble) => (byte)(nibble < 10 ? '0' + nibble : 'a' + nibble - 10);
}
