using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Voron.Documents.Indexing;

namespace Voron.Documents.Querying;

/// <summary>
/// Encodes a query's value as index keys hold it: the value is serialized with the member's own
/// <see cref="JsonTypeInfo"/> (so enums, dates and custom converters give exactly the JSON the
/// documents hold), then read back as a JSON value and encoded (Indexing/IndexKey.cs).
/// </summary>
internal static class ConstantEncoder
{
    public static byte[] Encode(object? value, JsonTypeInfo typeInfo, string member)
    {
        if (value == null)
        {
            return [IndexKey.Null];
        }

        var converted = ExpressionEvaluator.ConvertTo(value, typeInfo.Type);
        if (converted != null && !typeInfo.Type.IsInstanceOfType(converted) && Nullable.GetUnderlyingType(typeInfo.Type)?.IsInstanceOfType(converted) != true)
        {
            throw new NotSupportedException($"The value {value} ({value.GetType().Name}) cannot be compared with '{member}' ({typeInfo.Type.Name}).");
        }

        var json = JsonSerializer.SerializeToUtf8Bytes(converted, typeInfo);
        var reader = new Utf8JsonReader(json);
        reader.Read();
        var key = new KeyBuilder(16);
        if (!IndexKey.TryEncode(ref reader, key))
        {
            throw new NotSupportedException($"'{member}' is serialized as a JSON object or array; queries compare values (strings, numbers, booleans, null).");
        }

        return key.ToArray();
    }
}
