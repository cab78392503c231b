using Voron.Documents.Indexing;
using Voron.Documents.Serialization;

namespace Voron.Tests.Documents.Properties;

/// <summary>
/// SV1: the save's one pass (<see cref="CollectionIndexes.ComputeEntriesCheckingText"/>) against
/// the two-step check kept as the reference (<see cref="JsonValidation.ValidateText"/>, then
/// <see cref="CollectionIndexes.ComputeEntries"/> with a fresh extractor): for random documents,
/// valid and broken (invalid UTF-8 anywhere, lone surrogate escapes, deep nesting, duplicate
/// properties, numbers at the edges, values that cannot be indexed, key and entry limits,
/// truncation, bytes after the object), the same entries or the same exception (type, message,
/// position). The extractor of the one pass is reused across all cases, as the pool does.
/// </summary>
public sealed class OnePassTextCheckTests
{
    private const int Seed = 22_2;
    private const int Cases = 20_000;

    private static readonly string[] Names = ["a", "b", "c", "tags", "x", "y", "z", "é", "a\\u0062"];

    private static readonly string[] Numbers =
    [
        "0", "-0", "1", "-1", "42", "3.25", "1e308", "-1e308", "1e309", "-1e309", "1.5e-324", "4.9e-324",
        "9007199254740993", "-9007199254740993", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "18446744073709551615", "18446744073709551616", "-9223372036854775809",
        "123456789012345678901234567890", "0.1e-400", "1E+2",
    ];

    private static readonly string[] Escapes =
    [
        "\\n", "\\\"", "\\\\", "\\/", "\\u0041", "\\u00e9", "\\u0000", "\\uD83D\\uDE00", "\\uFFFF", "\\uFDD0",
        "\\uD800", "\\uDC00", "\\uD83Dx", "\\uD83D\\u0041", "\\uDBFF\\uDFFF", "\\\\uD800",
    ];

    private static readonly byte[][] Utf8Pieces =
    [
        "é"u8.ToArray(), "€"u8.ToArray(), "😀"u8.ToArray(), "\uFFFE"u8.ToArray(),
        [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xFF], [0xC3],
    ];

    private static readonly IndexDefinition[] Definitions =
    [
        new("docs", "by_a", "a"),
        new("docs", "by_b_c", "b.c", "z"),
        new("docs", "by_tags", "tags[]"),
        new("docs", "by_x_y", "x[].y"),
        new("docs", "by_e", "é"),
    ];

    [Fact]
    public void One_pass_equals_validate_then_extract_for_random_documents()
    {
        var random = new Random(Seed);
        var indexes = new CollectionIndexes("docs", Definitions.Select(d => (d, true)));
        var reused = indexes.CreateExtractor();
        var outcomes = new Dictionary<string, int>(StringComparer.Ordinal);
        for (var i = 0; i < Cases; i++)
        {
            var json = Document(random);
            var id = "docs/" + i;
            var idBytes = Encoding.UTF8.GetBytes(id);
            var expected = Outcome(() => Reference(indexes, json, idBytes, id));
            var actual = Outcome(() => indexes.ComputeEntriesCheckingText(json, idBytes, id, reused));
            Assert.True(expected == actual, $"case {i}: {Encoding.UTF8.GetString(json)}\nexpected {expected}\nactual   {actual}");
            var kind = expected.Split(':')[0];
            outcomes[kind] = outcomes.GetValueOrDefault(kind) + 1;
        }

        // The generator reaches every kind of result, or the comparison proves little.
        foreach (var kind in new[] { "entries", nameof(InvalidJsonException), nameof(ArgumentException), nameof(DocumentLimitException) })
        {
            Assert.True(outcomes.GetValueOrDefault(kind) >= 20, $"only {outcomes.GetValueOrDefault(kind)} cases ended in {kind}: {string.Join(", ", outcomes)}");
        }

        Assert.True(outcomes.Keys.Any(k => k.Contains("Json", StringComparison.Ordinal) && k != nameof(InvalidJsonException)), string.Join(", ", outcomes)); // the reader's own errors
    }

    [Fact]
    public void A_collection_without_indexes_only_checks_the_text()
    {
        var none = new CollectionIndexes("docs", []);
        var extractor = none.CreateExtractor();
        Assert.Empty(none.ComputeEntriesCheckingText("{\"a\":1}"u8, "d"u8, "d", extractor));
        var error = Assert.Throws<InvalidJsonException>(() => none.ComputeEntriesCheckingText("{\"a\":\"\\uD800\"}"u8, "d"u8, "d", extractor));
        Assert.Equal(6, error.BytePosition);
    }

    [Fact]
    public void A_broken_text_rule_after_a_value_that_cannot_be_indexed_is_the_error()
    {
        var indexes = new CollectionIndexes("docs", [(new IndexDefinition("docs", "by_a", "a"), true)]);
        var json = "{\"a\":{\"o\":1},\"b\":\"\\uDC00\"}"u8.ToArray();
        var error = Assert.Throws<InvalidJsonException>(() => indexes.ComputeEntriesCheckingText(json, "d"u8, "d", indexes.Rent()));
        Assert.Contains("JV2", error.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => indexes.ComputeEntries(json, "d"u8, indexes.CreateExtractor()));
    }

    [Fact]
    public void The_pool_gives_back_what_was_returned_and_makes_more_when_empty()
    {
        var indexes = new CollectionIndexes("docs", [(new IndexDefinition("docs", "by_a", "a"), true)]);
        var first = indexes.Rent();
        var second = indexes.Rent();
        Assert.NotSame(first, second);
        indexes.Return(first);
        Assert.Same(first, indexes.Rent());
        indexes.Return(first);
        indexes.Return(second);
        var again = new[] { indexes.Rent(), indexes.Rent() };
        Assert.Contains(first, again);
        Assert.Contains(second, again);
    }

    private static byte[][][] Reference(CollectionIndexes indexes, byte[] json, byte[] idBytes, string id)
    {
        JsonValidation.ValidateText(json, id);
        return indexes.ComputeEntries(json, idBytes, indexes.CreateExtractor());
    }

    private static string Outcome(Func<byte[][][]> run)
    {
        try
        {
            var entries = run();
            return "entries:" + string.Join("|", entries.Select(index => string.Join(",", index.Select(Convert.ToHexString))));
        }
        catch (InvalidJsonException e)
        {
            return $"{nameof(InvalidJsonException)}:{e.BytePosition}:{e.Message}";
        }
        catch (Exception e)
        {
            return $"{e.GetType().Name}:{e.Message}";
        }
    }

    private static byte[] Document(Random random)
    {
        var text = new List<byte>();
        var depthBudget = random.Next(8) == 0 ? 70 : random.Next(1, 5);
        if (random.Next(50) == 0)
        {
            text.AddRange([0xEF, 0xBB, 0xBF]); // a byte order mark
        }

        if (random.Next(30) == 0)
        {
            WriteDeep(random, text, random.Next(58, 70)); // around MaxJsonDepth (64)
        }
        else
        {
            WriteObject(random, text, depthBudget, root: true);
        }

        switch (random.Next(40))
        {
            case 0:
                text.AddRange(" \n"u8.ToArray());
                break;
            case 1:
                text.AddRange(Utf8Pieces[random.Next(Utf8Pieces.Length)]);
                break;
            case 2:
                text.AddRange("{}"u8.ToArray());
                break;
            case 3 when text.Count > 2:
                text.RemoveRange(text.Count - random.Next(1, Math.Min(text.Count, 6)), 1); // truncated or cut inside
                break;
            case 4 when text.Count > 3:
                text[random.Next(text.Count)] = (byte)"{}[],:\"x"[random.Next(8)]; // a structural byte changed
                break;
        }

        return [.. text];
    }

    /// <summary>An object nested <paramref name="depth"/> levels deep through "a" (an indexed path's first step) or arrays.</summary>
    private static void WriteDeep(Random random, List<byte> text, int depth)
    {
        var closers = new Stack<byte>();
        text.Add((byte)'{');
        closers.Push((byte)'}');
        for (var level = 1; level < depth; level++)
        {
            if (closers.Peek() == (byte)'}')
            {
                WriteString(random, text, random.Next(3) == 0 ? "x" : "a", brokenOdds: 200);
                text.Add((byte)':');
            }

            var array = random.Next(3) == 0;
            text.Add(array ? (byte)'[' : (byte)'{');
            closers.Push(array ? (byte)']' : (byte)'}');
        }

        if (closers.Peek() == (byte)']')
        {
            WriteValue(random, text, 0);
        }

        while (closers.Count > 0)
        {
            text.Add(closers.Pop());
        }
    }

    private static void WriteObject(Random random, List<byte> text, int depth, bool root)
    {
        text.Add((byte)'{');
        var count = depth <= 0 ? 0 : random.Next(root ? 1 : 0, 6);
        for (var i = 0; i < count; i++)
        {
            if (i > 0)
            {
                text.Add((byte)',');
            }

            WriteString(random, text, Names[random.Next(Names.Length)], brokenOdds: 60);
            text.Add((byte)':');
            WriteValue(random, text, depth - 1);
        }

        text.Add((byte)'}');
    }

    private static void WriteValue(Random random, List<byte> text, int depth)
    {
        var choice = depth <= 0 ? random.Next(5) : random.Next(8);
        switch (choice)
        {
            case 0:
                text.AddRange(Encoding.ASCII.GetBytes(Numbers[random.Next(Numbers.Length)]));
                break;
            case 1:
                text.AddRange(random.Next(3) switch { 0 => "null"u8.ToArray(), 1 => "true"u8.ToArray(), _ => "false"u8.ToArray() });
                break;
            case 2 or 3:
                WriteString(random, text, random.Next(40) == 0 ? new string('s', random.Next(400, 600)) : "v" + random.Next(100), brokenOdds: 30);
                break;
            case 4:
                text.AddRange(Encoding.ASCII.GetBytes(random.Next(-1000, 1000).ToString(System.Globalization.CultureInfo.InvariantCulture)));
                break;
            case 5 or 6:
                WriteObject(random, text, depth, root: false);
                break;
            default:
                text.Add((byte)'[');
                var count = random.Next(20) == 0 ? DocumentLimits.MaxIndexEntriesPerDocument + random.Next(-2, 3) : random.Next(0, 5);
                for (var i = 0; i < count; i++)
                {
                    if (i > 0)
                    {
                        text.Add((byte)',');
                    }

                    if (count > 100)
                    {
                        text.AddRange(Encoding.ASCII.GetBytes(i.ToString(System.Globalization.CultureInfo.InvariantCulture)));
                    }
                    else
                    {
                        WriteValue(random, text, depth - 1);
                    }
                }

                text.Add((byte)']');
                break;
        }
    }

    /// <summary>A JSON string: the text given, sometimes with escapes and UTF-8 (valid or not) mixed in.</summary>
    private static void WriteString(Random random, List<byte> text, string value, int brokenOdds)
    {
        text.Add((byte)'"');
        text.AddRange(Encoding.UTF8.GetBytes(value));
        if (random.Next(4) == 0)
        {
            text.AddRange(Encoding.ASCII.GetBytes(Escapes[random.Next(Escapes.Length)]));
        }

        if (random.Next(brokenOdds) == 0)
        {
            text.AddRange(Utf8Pieces[random.Next(Utf8Pieces.Length)]);
        }

        text.Add((byte)'"');
    }
}
