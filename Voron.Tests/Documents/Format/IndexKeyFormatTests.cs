using System.Text.Json;
using Voron.Documents.Indexing;

namespace Voron.Tests.Documents.Format;

/// <summary>The index key encoding (FORMAT block in Indexing/IndexKey.cs): byte order is value order.</summary>
public sealed class IndexKeyFormatTests(ITestOutputHelper output)
{
    private static byte[] Encode(string json)
    {
        var reader = new Utf8JsonReader(Encoding.UTF8.GetBytes(json));
        reader.Read();
        var key = new KeyBuilder();
        Assert.True(IndexKey.TryEncode(ref reader, key));
        return key.ToArray();
    }

    [Fact]
    public void Encodings_have_the_documented_bytes()
    {
        Assert.Equal([0x10], Encode("null"));
        Assert.Equal([0x20], Encode("false"));
        Assert.Equal([0x21], Encode("true"));
        Assert.Equal([0x40, (byte)'a', 0x00, 0xFF, (byte)'b', 0x00, 0x01], Encode("\"a\\u0000b\""));
        var one = Encode("1");
        Assert.Equal(10, one.Length);
        Assert.Equal(0x30, one[0]);
        Assert.Equal([0xBF, 0xF0, 0, 0, 0, 0, 0, 0], one[1..9]); // 1.0 = 0x3FF0..., sign bit flipped
        Assert.Equal(0x80, one[9]);
        Assert.Equal(one, Encode("1.0"));
        Assert.Equal(one, Encode("1e0"));
        Assert.Equal(Encode("0"), Encode("-0"));
        var big = Encode("9007199254740993"); // 2^53 + 1: a double cannot hold it
        Assert.Equal(18, big.Length);
        Assert.Equal(0x81, big[9]);
    }

    [Fact]
    public void Byte_order_is_value_order_across_types_and_number_kinds()
    {
        var ordered = new[]
        {
            "null", "false", "true", "-1e300", "-18446744073709551615", "-9007199254740993", "-9007199254740992", "-2.5", "-1", "0", "0.5", "1",
            "9007199254740992", "9007199254740993", "9007199254740994", "18446744073709551614", "18446744073709551615", "1e300",
            "\"\"", "\"\\u0000\"", "\"\\u0000a\"", "\"a\"", "\"a\\u0000\"", "\"ab\"", "\"b\"", "\"é\"", "\"𝄞\"",
        };
        var encoded = ordered.Select(Encode).ToList();
        for (var i = 1; i < encoded.Count; i++)
        {
            Assert.True(encoded[i - 1].AsSpan().SequenceCompareTo(encoded[i]) < 0, $"{ordered[i - 1]} should sort before {ordered[i]}");
        }
    }

    [Fact]
    public void Random_numbers_sort_numerically()
    {
        var seed = TestSeed.Next(output, nameof(Random_numbers_sort_numerically));
        var random = new Random(seed);
        var values = new List<(decimal Value, string Json)>();
        for (var i = 0; i < 20_000; i++)
        {
            switch (random.Next(4))
            {
                case 0:
                    var l = random.NextInt64(long.MinValue, long.MaxValue);
                    values.Add((l, l.ToString(CultureInfo.InvariantCulture)));
                    break;
                case 1:
                    var small = random.Next(-1000, 1000);
                    values.Add((small, small.ToString(CultureInfo.InvariantCulture)));
                    break;
                case 2:
                    var d = Math.Round((random.NextDouble() - 0.5) * 1e6, 3);
                    values.Add(((decimal)d, d.ToString("R", CultureInfo.InvariantCulture)));
                    break;
                default:
                    var near = (long)(1L << 53) + random.Next(-50, 50);
                    near = random.Next(2) == 0 ? near : -near;
                    values.Add((near, near.ToString(CultureInfo.InvariantCulture)));
                    break;
            }
        }

        var byValue = values.OrderBy(v => v.Value).ToList();
        var byKey = values.OrderBy(v => Encode(v.Json), ByteComparer.Instance).ToList();
        for (var i = 0; i < values.Count; i++)
        {
            Assert.True(byValue[i].Value == byKey[i].Value, $"seed {seed}: position {i}: {byValue[i].Json} by value, {byKey[i].Json} by key");
        }
    }

    [Fact]
    public void ValueLength_finds_the_end_of_each_value_and_rejects_damage()
    {
        var key = Encode("\"x\\u0000y\"").Concat(Encode("12")).Concat(Encode("true")).Concat("id"u8.ToArray()).ToArray();
        Assert.Equal(key.Length - 2, IndexKey.ValuesLength(key, 3));
        Assert.Equal("[\"x\\u0000y\",12,true]", IndexKey.DescribeValues(key, 3));
        Assert.Equal(-1, IndexKey.ValueLength([0x77]));
        Assert.Equal(-1, IndexKey.ValueLength([0x40, (byte)'a', 0x00, 0x05]));
        Assert.Equal(-1, IndexKey.ValueLength([0x30, 1, 2]));
    }

    [Fact]
    public void Definition_records_round_trip_and_reject_damage()
    {
        var definition = new Voron.Documents.IndexDefinition("User", "by_city_tags", "address.city", "tags[]").AsUnique();
        var record = new IndexDefinitionRecord(definition, false, 17, "User/9"u8.ToArray());
        var bytes = record.Encode();
        var decoded = IndexDefinitionRecord.Decode("User", "by_city_tags", bytes, "/s");
        Assert.Equal(definition, decoded.Definition);
        Assert.False(decoded.Ready);
        Assert.Equal(17, decoded.Processed);
        Assert.Equal("User/9"u8.ToArray(), decoded.ResumeAfter);
        bytes[0] = 0;
        Assert.Throws<Voron.CorruptionException>(() => IndexDefinitionRecord.Decode("User", "by_city_tags", bytes, "/s"));
        bytes[0] = 9; // a newer build's format: VersionedFormatTests
        Assert.Throws<Voron.FormatVersionException>(() => IndexDefinitionRecord.Decode("User", "by_city_tags", bytes, "/s"));
        Assert.Throws<Voron.CorruptionException>(() => IndexDefinitionRecord.Decode("User", "by_city_tags", record.Encode().AsSpan(0, bytes.Length - 1), "/s"));
    }
}
