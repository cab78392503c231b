using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Voron.Documents.AspNetCore.Http;

/// <summary>
/// Reads <see cref="double"/> (and <see cref="float"/>) request members like the default converter,
/// but refuses a value that is not finite — a number out of range (1e400) reads as infinity, which
/// no JSON document can hold (BR3). Writes as the default converter does.
/// </summary>
internal sealed class FiniteNumberConverter : JsonConverter<double>
{
    public override double Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        double value;
        if (reader.TokenType == JsonTokenType.String && (options.NumberHandling & JsonNumberHandling.AllowReadingFromString) != 0)
        {
            if (!double.TryParse(reader.GetString(), NumberStyles.Float, CultureInfo.InvariantCulture, out value))
            {
                throw new JsonException("The JSON string is not a number.");
            }
        }
        else if (reader.TokenType != JsonTokenType.Number || !reader.TryGetDouble(out value))
        {
            throw new JsonException($"The JSON value must be a number; it is {Kind(reader.TokenType)}.");
        }

        if (!double.IsFinite(value))
        {
            throw new JsonException("The number is out of range: a number must be finite, at most ±1.7976931348623157e308.");
        }

        return value;
    }

    public override void Write(Utf8JsonWriter writer, double value, JsonSerializerOptions options)
    {
        ArgumentNullException.ThrowIfNull(writer);
        writer.WriteNumberValue(value);
    }

    private static string Kind(JsonTokenType token) => token switch
    {
        JsonTokenType.String => "a string",
        JsonTokenType.StartObject => "an object",
        JsonTokenType.StartArray => "an array",
        JsonTokenType.True or JsonTokenType.False => "a boolean",
        JsonTokenType.Null => "null",
        _ => token.ToString(),
    };
}

/// <summary>As <see cref="FiniteNumberConverter"/>, for <see cref="float"/> (BR3).</summary>
internal sealed class FiniteSingleConverter : JsonConverter<float>
{
    private static readonly FiniteNumberConverter Double = new();

    public override float Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        var value = (float)Double.Read(ref reader, typeof(double), options);
        return float.IsFinite(value) ? value : throw new JsonException("The number is out of range: a float must be finite, at most ±3.4028235e38.");
    }

    public override void Write(Utf8JsonWriter writer, float value, JsonSerializerOptions options)
    {
        ArgumentNullException.ThrowIfNull(writer);
        writer.WriteNumberValue(value);
    }
}
