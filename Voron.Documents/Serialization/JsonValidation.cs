using System.Buffers;
using System.Text.Json;
using System.Text.Unicode;

namespace Voron.Documents.Serialization;

/// <summary>
/// Checks that raw bytes are one JSON object in UTF-8 (RFC 8259: no comments, no trailing
/// commas, nothing after the object, nesting at most <see cref="DocumentLimits.MaxJsonDepth"/>),
/// and says where they are not.
/// </summary>
internal static class JsonValidation
{
    private static readonly JsonReaderOptions ReaderOptions = new()
    {
        MaxDepth = DocumentLimits.MaxJsonDepth,
        CommentHandling = JsonCommentHandling.Disallow,
        AllowTrailingCommas = false,
    };

    public static JsonReaderOptions Options => ReaderOptions;

    /// <summary>Throws <see cref="InvalidJsonException"/> unless <paramref name="json"/> is one valid JSON object.</summary>
    public static void ValidateObject(ReadOnlySpan<byte> json, string? id)
    {
        if (json.IsEmpty)
        {
            throw new InvalidJsonException(id, 0, 0, 0, "the input is empty; a document is a JSON object.");
        }

        // Utf8JsonReader does not check the UTF-8 of string contents; the store promises valid UTF-8.
        if (!Utf8.IsValid(json))
        {
            var position = InvalidUtf8Position(json);
            var (line, inLine) = LineOf(json, position);
            throw new InvalidJsonException(id, position, line, inLine, "invalid UTF-8.");
        }

        var reader = new Utf8JsonReader(json, ReaderOptions);
        try
        {
            reader.Read();
            if (reader.TokenType != JsonTokenType.StartObject)
            {
                var start = reader.TokenStartIndex;
                var (line, inLine) = LineOf(json, start);
                throw new InvalidJsonException(id, start, line, inLine, $"a document is a JSON object, but this is a {Describe(reader.TokenType)}.");
            }

            while (reader.Read())
            {
            }
        }
        catch (JsonException e) when (e is not InvalidJsonException)
        {
            var line = e.LineNumber ?? 0;
            var inLine = e.BytePositionInLine ?? 0;
            throw new InvalidJsonException(id, PositionOf(json, line, inLine), line, inLine, Reason(e), e);
        }
    }

    private static string Describe(JsonTokenType token) => token switch
    {
        JsonTokenType.StartArray => "array",
        JsonTokenType.String => "string",
        JsonTokenType.Number => "number",
        JsonTokenType.True or JsonTokenType.False => "boolean",
        JsonTokenType.Null => "null",
        _ => token.ToString(),
    };

    /// <summary>System.Text.Json's message without its own position suffix (ours replaces it).</summary>
    private static string Reason(JsonException e)
    {
        var message = e.Message;
        var cut = message.IndexOf(" LineNumber:", StringComparison.Ordinal);
        return cut > 0 ? message[..cut] : message;
    }

    private static long InvalidUtf8Position(ReadOnlySpan<byte> json)
    {
        var scratch = ArrayPool<char>.Shared.Rent(4096);
        try
        {
            long offset = 0;
            while (true)
            {
                var status = Utf8.ToUtf16(json, scratch, out var read, out _, replaceInvalidSequences: false);
                if (status != OperationStatus.DestinationTooSmall)
                {
                    return offset + read;
                }

                offset += read;
                json = json[read..];
            }
        }
        finally
        {
            ArrayPool<char>.Shared.Return(scratch);
        }
    }

    /// <summary>The absolute offset of (line, byte in line), counting lines as System.Text.Json does (at '\n').</summary>
    private static long PositionOf(ReadOnlySpan<byte> json, long line, long inLine)
    {
        long offset = 0;
        for (long l = 0; l < line; l++)
        {
            var newline = json[(int)offset..].IndexOf((byte)'\n');
            if (newline < 0)
            {
                break;
            }

            offset += newline + 1;
        }

        return Math.Min(offset + inLine, json.Length);
    }

    private static (long Line, long InLine) LineOf(ReadOnlySpan<byte> json, long position)
    {
        var before = json[..(int)Math.Min(position, json.Length)];
        var line = before.Count((byte)'\n');
        var lastNewline = before.LastIndexOf((byte)'\n');
        return (line, position - (lastNewline + 1));
    }
}
