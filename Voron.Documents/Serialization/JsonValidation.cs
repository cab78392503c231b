using System.Buffers;
using System.Text.Json;
using System.Text.Unicode;

namespace Voron.Documents.Serialization;

/// <summary>
/// Checks that raw bytes are one JSON object in UTF-8 (RFC 8259: no comments, no trailing
/// commas, nothing after the object, nesting at most <see cref="DocumentLimits.MaxJsonDepth"/>),
/// and says where they are not.
/// </summary>
/// <remarks>
/// Text rules (JV1..JV4), so that every string a document holds is Unicode text that System.Text.Json
/// can read back, index and compare:
/// <list type="number">
/// <item>JV1. the bytes are well-formed UTF-8 (no overlong forms, no encoded surrogates, nothing
/// above U+10FFFF, no truncated sequence).</item>
/// <item>JV2. a \u escape of a high surrogate (D800-DBFF) is followed at once by a \u escape of a low
/// surrogate (DC00-DFFF), and a low surrogate escape only follows a high one: a lone surrogate is
/// not text (it cannot become UTF-8) and is refused.</item>
/// <item>JV3. control characters (below U+0020, NUL included) appear in strings only escaped
/// (Utf8JsonReader checks this); "\u0000" is accepted and is the character U+0000.</item>
/// <item>JV4. noncharacters (U+FFFE, U+FFFF, U+FDD0-FDEF, ...) are scalar values and are accepted,
/// raw or escaped.</item>
/// </list>
/// </remarks>
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
            throw new InvalidJsonException(id, position, line, inLine, "invalid UTF-8 (JV1).");
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
                if (reader.TokenType is JsonTokenType.String or JsonTokenType.PropertyName && reader.ValueIsEscaped)
                {
                    var bad = LoneSurrogateEscape(reader.ValueSpan);
                    if (bad >= 0)
                    {
                        // ValueSpan starts after the opening quote (the reader holds one span: no ValueSequence).
                        var position = reader.TokenStartIndex + 1 + bad;
                        var (line, inLine) = LineOf(json, position);
                        throw new InvalidJsonException(id, position, line, inLine, LoneSurrogateReason);
                    }
                }
            }
        }
        catch (JsonException e) when (e is not InvalidJsonException)
        {
            var line = e.LineNumber ?? 0;
            var inLine = e.BytePositionInLine ?? 0;
            throw new InvalidJsonException(id, PositionOf(json, line, inLine), line, inLine, Reason(e), e);
        }
    }

    /// <summary>
    /// Checks the text rules JV1 and JV2 on JSON the store's serializer wrote (typed saves and bulk
    /// inserts: a custom converter can write raw JSON): throws <see cref="InvalidJsonException"/>
    /// with the position of the first offence. Backslashes occur only in strings of valid JSON, so
    /// the whole document is scanned as one string.
    /// </summary>
    public static void ValidateText(ReadOnlySpan<byte> json, string? id)
    {
        long position = -1;
        var reason = "";
        if (!Utf8.IsValid(json))
        {
            position = InvalidUtf8Position(json);
            reason = "invalid UTF-8 (JV1).";
        }
        else if (LoneSurrogateEscape(json) is var bad and >= 0)
        {
            position = bad;
            reason = LoneSurrogateReason;
        }

        if (position >= 0)
        {
            var (line, inLine) = LineOf(json, position);
            throw new InvalidJsonException(id, position, line, inLine, reason);
        }
    }

    private const string LoneSurrogateReason = "a \\u escape of a lone surrogate (JV2); write a UTF-16 surrogate pair (\\uD83D\\uDE00) or the character itself.";

    /// <summary>
    /// The offset in <paramref name="raw"/> (a string's bytes as written, between its quotes) of the
    /// first \u escape of a surrogate not in a high-low pair (JV2), or -1 when there is none.
    /// </summary>
    internal static int LoneSurrogateEscape(ReadOnlySpan<byte> raw)
    {
        for (var i = 0; i < raw.Length; i++)
        {
            var backslash = raw[i..].IndexOf((byte)'\\');
            if (backslash < 0)
            {
                return -1;
            }

            i += backslash;

            if (i + 1 >= raw.Length || raw[i + 1] != (byte)'u')
            {
                i++; // a two-byte escape (\n, \", \\ ...)
                continue;
            }

            var unit = Hex4(raw, i + 2);
            if (unit is >= 0xDC00 and <= 0xDFFF)
            {
                return i;
            }

            if (unit is >= 0xD800 and <= 0xDBFF)
            {
                var next = i + 6;
                if (next + 1 >= raw.Length || raw[next] != (byte)'\\' || raw[next + 1] != (byte)'u' || Hex4(raw, next + 2) is < 0xDC00 or > 0xDFFF)
                {
                    return i;
                }

                i = next + 5;
                continue;
            }

            i += 5;
        }

        return -1;
    }

    /// <summary>The value of four hex digits at <paramref name="at"/>, or -1 (the reader checked the escapes it accepted).</summary>
    private static int Hex4(ReadOnlySpan<byte> raw, int at)
    {
        if (at + 4 > raw.Length)
        {
            return -1;
        }

        var value = 0;
        foreach (var b in raw.Slice(at, 4))
        {
            var digit = b switch
            {
                >= (byte)'0' and <= (byte)'9' => b - '0',
                >= (byte)'a' and <= (byte)'f' => b - 'a' + 10,
                >= (byte)'A' and <= (byte)'F' => b - 'A' + 10,
                _ => -1,
            };
            if (digit < 0)
            {
                return -1;
            }

            value = (value << 4) | digit;
        }

        return value;
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
