using System.Text;
using System.Text.Json;

namespace Voron.Documents.Serialization;

/// <summary>
/// Reads a document's expiry from <see cref="ExpirationOptions.JsonField"/>: a top-level property
/// holding an ISO 8601 date-time string. A date-time without an offset is taken as UTC (the store
/// never reads the machine's local zone).
/// </summary>
internal sealed class ExpiryField(string name)
{
    private readonly byte[] _name = Encoding.UTF8.GetBytes(name);

    public string Name { get; } = name;

    /// <summary>
    /// The expiry (UTC ticks, 0: none) <paramref name="json"/> holds: 0 when the property is missing
    /// or null; <see cref="InvalidJsonException"/> naming the document and the field when it holds
    /// anything but a date-time string. JSON that does not parse reads as none here: the save's
    /// own check of the text reports it.
    /// </summary>
    public long Read(ReadOnlySpan<byte> json, string id)
    {
        var reader = new Utf8JsonReader(json);
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return 0;
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var match = reader.ValueTextEquals(_name);
                reader.Read();
                if (match)
                {
                    return Value(ref reader, id);
                }

                reader.Skip();
            }
        }
        catch (JsonException e) when (e is not InvalidJsonException)
        {
            // not JSON: the text check of the save reports it with its position
        }

        return 0;
    }

    private long Value(ref Utf8JsonReader reader, string id)
    {
        if (reader.TokenType == JsonTokenType.Null)
        {
            return 0;
        }

        if (reader.TokenType == JsonTokenType.String && reader.TryGetDateTimeOffset(out var value))
        {
            var text = reader.ValueIsEscaped ? reader.GetString()! : Encoding.UTF8.GetString(reader.ValueSpan);
            var ticks = HasOffset(text) ? value.UtcTicks : value.DateTime.Ticks;
            return Math.Max(ticks, 1); // 0 means "none" (DR9)
        }

        var what = reader.TokenType switch
        {
            JsonTokenType.String => $"the string \"{Shorten(reader.GetString()!)}\"",
            JsonTokenType.Number => "a number",
            JsonTokenType.True or JsonTokenType.False => "a boolean",
            JsonTokenType.StartObject => "an object",
            _ => "an array",
        };
        throw new InvalidJsonException(id, reader.TokenStartIndex, 0, reader.TokenStartIndex,
            $"the expiration field '{Name}' (ExpirationOptions.JsonField) holds {what}, not an ISO 8601 date-time string (or null for none).");
    }

    /// <summary>Whether an ISO 8601 date-time names its offset ("Z", "+hh:mm", "-hh:mm" after the time).</summary>
    private static bool HasOffset(string text)
    {
        var time = text.IndexOfAny(['T', 't']);
        if (time < 0)
        {
            return false;
        }

        return text.EndsWith('Z') || text.EndsWith('z') || text.IndexOfAny(['+', '-'], time) >= 0;
    }

    private static string Shorten(string text) => text.Length <= 40 ? text : text[..40] + "...";
}
