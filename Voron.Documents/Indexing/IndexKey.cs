using System.Buffers.Binary;
using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Voron.Documents.Indexing;

// FORMAT: index key encoding, version 1 — how JSON values become the keys of index trees
// ("@docs.idx/<collection>/<index>", Storage/DocumentTrees.cs), so that comparing keys as
// unsigned bytes (the store's only order) is comparing the values.
//
// An index entry's key is its values' encodings concatenated in the index's path order, then
// the document id's UTF-8 bytes; the value is empty. Each encoding is self-delimiting, so the
// id is whatever follows the last value, and all entries of one value tuple form one key range.
//
//   value                 bytes
//   null (or missing)     0x10
//   false                 0x20
//   true                  0x21
//   number                0x30, D (8 bytes), then 0x80             the number is the double D exactly
//                         0x30, D (8 bytes), 0x7F|0x81, R (8 bytes) an integer n = D + R, R != 0
//   string                0x40, UTF-8 bytes with each 0x00 written 0x00 0xFF, then 0x00 0x01
//   (objects and arrays are not values: a path reaching one is an error; "[]" indexes elements)
//
//   D: the IEEE 754 double nearest the number (-0 written as +0), its 64 bits big-endian with
//      the sign bit flipped for positive numbers and every bit flipped for negative ones, so
//      doubles compare as unsigned bytes in numeric order.
//   R: for an integer written without fraction or exponent that fits in int64 or uint64 and that
//      D does not hold exactly (|n| > 2^53), the remainder n - D as int64, big-endian with the
//      sign bit flipped; 0x7F marks R < 0 and 0x81 R > 0, so n sorts just below or above D.
//
// Which value a path reads (a missing property is null; a property name repeated in one object
// is read at its first occurrence, from store format 3) is Indexing/JsonPathExtractor.cs's rule.
// SQLite's json_extract reads an integer above int64 as its nearest double D; here it stays exact
// (D and R), so SQL over documents reads a REAL constant in that range as every key of its D (SD4).
//
// Order: null < false < true < numbers (numeric order across integers and floating point) <
// strings (ordinal order of their UTF-8 bytes = code point order). A query's range on a type
// stays within that type's tag (a number range never matches strings or null).
//
// Validity (the integrity check decodes every entry):
//   K1. each value starts with a known tag;
//   K2. a number has 8 bytes then 0x80, or 0x7F/0x81 and 8 more;
//   K3. a string's 0x00 bytes are followed by 0xFF or by 0x01 (its end), and it ends;
//   K4. the values take at most DocumentLimits.MaxIndexKeyBytes and the id that follows is
//       1..512 bytes.
// Compatibility: a change to the encoding changes every key: a new version rebuilds indexes.

/// <summary>Encodes and decodes index key values; see the FORMAT block above.</summary>
internal static class IndexKey
{
    public const byte Null = 0x10;
    public const byte False = 0x20;
    public const byte True = 0x21;
    public const byte Number = 0x30;
    public const byte String = 0x40;

    public const byte ExactMarker = 0x80;
    public const byte NegativeRemainder = 0x7F;
    public const byte PositiveRemainder = 0x81;
    public const byte StringEscape = 0xFF;
    public const byte StringEnd = 0x01;

    public const int NumberLength = 10;
    public const int NumberWithRemainderLength = 18;

    /// <summary>
    /// Encodes the value the reader is on (null, a boolean, a number or a string). Returns false
    /// for the start of an object or array; throws <see cref="ArgumentException"/> for a number no
    /// double can hold and for a string that is not Unicode text (an escaped lone surrogate).
    /// </summary>
    public static bool TryEncode(ref Utf8JsonReader reader, KeyBuilder key)
    {
        switch (reader.TokenType)
        {
            case JsonTokenType.Null:
                key.Append(Null);
                return true;
            case JsonTokenType.False:
                key.Append(False);
                return true;
            case JsonTokenType.True:
                key.Append(True);
                return true;
            case JsonTokenType.Number:
                EncodeNumber(ref reader, key);
                return true;
            case JsonTokenType.String:
                EncodeString(ref reader, key);
                return true;
            default:
                return false;
        }
    }

    private static void EncodeNumber(ref Utf8JsonReader reader, KeyBuilder key)
    {
        if (reader.TryGetInt64(out var signed))
        {
            EncodeInteger(signed, key);
        }
        else if (reader.TryGetUInt64(out var unsigned))
        {
            EncodeInteger(unsigned, key);
        }
        else if (reader.TryGetDouble(out var value) && double.IsFinite(value))
        {
            EncodeDouble(value, key);
        }
        else
        {
            var text = Encoding.UTF8.GetString(reader.HasValueSequence ? System.Buffers.BuffersExtensions.ToArray(reader.ValueSequence) : reader.ValueSpan.ToArray());
            throw new ArgumentException($"The number {text} is outside the range of a double and cannot be indexed.");
        }
    }

    /// <summary>An integer: exact even beyond 2^53 (D plus a remainder R).</summary>
    public static void EncodeInteger(Int128 value, KeyBuilder key)
    {
        var nearest = (double)value;
        var remainder = (long)(value - (Int128)nearest);
        WriteDouble(nearest, key);
        if (remainder == 0)
        {
            key.Append(ExactMarker);
            return;
        }

        key.Append(remainder < 0 ? NegativeRemainder : PositiveRemainder);
        Span<byte> bytes = stackalloc byte[8];
        BinaryPrimitives.WriteUInt64BigEndian(bytes, (ulong)remainder ^ 0x8000_0000_0000_0000UL);
        key.Append(bytes);
    }

    public static void EncodeDouble(double value, KeyBuilder key)
    {
        WriteDouble(value, key);
        key.Append(ExactMarker);
    }

    private static void WriteDouble(double value, KeyBuilder key)
    {
        if (value == 0)
        {
            value = 0; // -0 and +0 are one value
        }

        var bits = (ulong)BitConverter.DoubleToInt64Bits(value);
        bits = (bits & 0x8000_0000_0000_0000UL) != 0 ? ~bits : bits | 0x8000_0000_0000_0000UL;
        Span<byte> bytes = stackalloc byte[9];
        bytes[0] = Number;
        BinaryPrimitives.WriteUInt64BigEndian(bytes[1..], bits);
        key.Append(bytes);
    }

    private static void EncodeString(ref Utf8JsonReader reader, KeyBuilder key)
    {
        key.Append(String);
        if (!reader.ValueIsEscaped && !reader.HasValueSequence)
        {
            AppendEscaped(reader.ValueSpan, key);
        }
        else
        {
            var length = reader.HasValueSequence ? checked((int)reader.ValueSequence.Length) : reader.ValueSpan.Length;
            var buffer = length <= 256 ? stackalloc byte[256] : new byte[length];
            int written;
            try
            {
                written = reader.CopyString(buffer);
            }
            catch (InvalidOperationException e)
            {
                // An escaped lone surrogate (JV2 in Serialization/JsonValidation.cs refuses them at
                // the door; a document stored before that, or written by a custom converter, can hold one).
                throw new ArgumentException($"a string at byte {reader.TokenStartIndex} is not valid Unicode text (an escaped lone surrogate), so it cannot be indexed; store the document again with valid text.", e);
            }

            AppendEscaped(buffer[..written], key);
        }

        key.Append(0x00);
        key.Append(StringEnd);
    }

    /// <summary>Appends a string's encoding (tag, escaped bytes, end).</summary>
    public static void EncodeString(ReadOnlySpan<byte> utf8, KeyBuilder key)
    {
        key.Append(String);
        AppendEscaped(utf8, key);
        key.Append(0x00);
        key.Append(StringEnd);
    }

    /// <summary>The bytes every encoded string starting with <paramref name="prefix"/> starts with (a StartsWith range).</summary>
    public static void EncodeStringPrefix(ReadOnlySpan<byte> prefix, KeyBuilder key)
    {
        key.Append(String);
        AppendEscaped(prefix, key);
    }

    private static void AppendEscaped(ReadOnlySpan<byte> utf8, KeyBuilder key)
    {
        while (!utf8.IsEmpty)
        {
            var zero = utf8.IndexOf((byte)0);
            if (zero < 0)
            {
                key.Append(utf8);
                return;
            }

            key.Append(utf8[..(zero + 1)]);
            key.Append(StringEscape);
            utf8 = utf8[(zero + 1)..];
        }
    }

    /// <summary>
    /// The number a valid number encoding (K2) holds: its nearest double D and the remainder R
    /// (0 unless the number is an integer D does not hold exactly); the number is D + R.
    /// </summary>
    public static (double Nearest, long Remainder) DecodeNumber(ReadOnlySpan<byte> value)
    {
        var bits = BinaryPrimitives.ReadUInt64BigEndian(value[1..]);
        bits = (bits & 0x8000_0000_0000_0000UL) != 0 ? bits & ~0x8000_0000_0000_0000UL : ~bits;
        var nearest = BitConverter.Int64BitsToDouble((long)bits);
        var remainder = value[9] == ExactMarker ? 0 : (long)(BinaryPrimitives.ReadUInt64BigEndian(value[10..]) ^ 0x8000_0000_0000_0000UL);
        return (nearest, remainder);
    }

    /// <summary>The length of the value encoding at the start of <paramref name="key"/>, or -1 when it breaks K1..K3.</summary>
    public static int ValueLength(ReadOnlySpan<byte> key)
    {
        if (key.IsEmpty)
        {
            return -1;
        }

        switch (key[0])
        {
            case Null or False or True:
                return 1;
            case Number:
                if (key.Length < NumberLength)
                {
                    return -1;
                }

                return key[9] switch
                {
                    ExactMarker => NumberLength,
                    NegativeRemainder or PositiveRemainder when key.Length >= NumberWithRemainderLength => NumberWithRemainderLength,
                    _ => -1,
                };
            case String:
                for (var i = 1; i < key.Length - 1; i++)
                {
                    if (key[i] != 0)
                    {
                        continue;
                    }

                    if (key[i + 1] == StringEnd)
                    {
                        return i + 2;
                    }

                    if (key[i + 1] != StringEscape)
                    {
                        return -1;
                    }

                    i++;
                }

                return -1;
            default:
                return -1;
        }
    }

    /// <summary>The length of <paramref name="count"/> consecutive value encodings, or -1 when one is invalid.</summary>
    public static int ValuesLength(ReadOnlySpan<byte> key, int count)
    {
        var total = 0;
        for (var i = 0; i < count; i++)
        {
            var length = ValueLength(key[total..]);
            if (length < 0)
            {
                return -1;
            }

            total += length;
        }

        return total;
    }

    /// <summary>The tag byte that ends the type range of <paramref name="tag"/> (exclusive upper bound of its values).</summary>
    public static byte TypeEnd(byte tag) => tag switch
    {
        Null => Null + 1,
        False or True => True + 1,
        Number => Number + 1,
        String => String + 1,
        _ => throw new ArgumentOutOfRangeException(nameof(tag)),
    };

    /// <summary>The tag's lower bound for a range of its type (booleans share one range).</summary>
    public static byte TypeStart(byte tag) => tag is True ? False : tag;

    /// <summary>One value encoding as JSON text (messages, diagnostics).</summary>
    public static string Describe(ReadOnlySpan<byte> value)
    {
        switch (value[0])
        {
            case Null:
                return "null";
            case False:
                return "false";
            case True:
                return "true";
            case Number:
                {
                    var (nearest, remainder) = DecodeNumber(value);
                    return remainder == 0
                        ? nearest.ToString("R", CultureInfo.InvariantCulture)
                        : ((Int128)nearest + remainder).ToString(CultureInfo.InvariantCulture);
                }

            case String:
                {
                    var text = new List<byte>();
                    for (var i = 1; i < value.Length; i++)
                    {
                        if (value[i] == 0)
                        {
                            if (value[i + 1] == StringEnd)
                            {
                                break;
                            }

                            text.Add(0);
                            i++;
                            continue;
                        }

                        text.Add(value[i]);
                    }

                    return "\"" + JsonEncodedText.Encode(Encoding.UTF8.GetString([.. text]), System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping).ToString() + "\"";
                }

            default:
                return "?";
        }
    }

    /// <summary>The values of an entry key as JSON text: one value, or a JSON array of a compound key's values.</summary>
    public static string DescribeValues(ReadOnlySpan<byte> values, int count)
    {
        var parts = new List<string>(count);
        for (var i = 0; i < count; i++)
        {
            var length = ValueLength(values);
            if (length < 0)
            {
                parts.Add("?");
                break;
            }

            parts.Add(Describe(values[..length]));
            values = values[length..];
        }

        return count == 1 ? parts[0] : "[" + string.Join(",", parts) + "]";
    }

    /// <summary>
    /// The smallest byte string greater than every string starting with <paramref name="prefix"/>
    /// (trailing 0xFF dropped, the last byte incremented), or null when there is none.
    /// </summary>
    public static byte[]? Successor(ReadOnlySpan<byte> prefix)
    {
        var trimmed = prefix.TrimEnd((byte)0xFF);
        if (trimmed.IsEmpty)
        {
            return null;
        }

        var successor = trimmed.ToArray();
        successor[^1]++;
        return successor;
    }
}
