using Voron.Documents.Indexing;

namespace Voron.Tests.Documents.Indexing;

/// <summary>
/// What an index reads at a path (Indexing/JsonPathExtractor.cs): for a single-value path, what
/// SQLite's json_extract reads there, so that indexes serve SQL over documents (voron_docs) and
/// the document API alike.
/// </summary>
public sealed class JsonPathExtractorTests(ITestOutputHelper output)
{
    private static string[] Read(string json, string path)
    {
        var extractor = new JsonPathExtractor([JsonPath.Parse(path)]);
        extractor.Extract(Encoding.UTF8.GetBytes(json));
        return [.. extractor.ValuesOf(0).Select(v => IndexKey.Describe(v))];
    }

    /// <summary>The index kept the last of a repeated member where json_extract keeps the first; both read the first now, at every step of the path.</summary>
    [Theory]
    [InlineData("""{"a":1,"a":2}""", "a", "1")]
    [InlineData("""{"a":1,"a":{}}""", "a", "1")]
    [InlineData("""{"\u0061":1,"a":2}""", "a", "1")]
    [InlineData("""{"n":{"x":1},"n":{"x":2}}""", "n.x", "1")]
    [InlineData("""{"n":{"y":2},"n":{"x":1}}""", "n.x", "null")]
    [InlineData("""{"n":5,"n":{"x":1}}""", "n.x", "null")]
    [InlineData("""{"n":{"x":1,"x":3},"n":{"x":2}}""", "n.x", "1")]
    public void A_single_value_path_reads_the_first_occurrence_of_a_repeated_member_at_every_step(string json, string path, string value)
    {
        Assert.Equal([value], Read(json, path));
    }

    [Fact]
    public void A_multikey_path_takes_the_elements_of_every_occurrence()
    {
        Assert.Equal(["1", "2", "3"], Read("""{"t":[1,2],"t":[3]}""", "t[]"));
        Assert.Equal(["\"a\"", "\"b\""], Read("""{"l":[{"s":"a"}],"l":[{"s":"b"}]}""", "l[].s"));
    }

    /// <summary>The document API reads a repeated member as the index does: its first occurrence, in conditions the index serves, in conditions checked on the documents and in sorts.</summary>
    [Fact]
    public async Task Raw_queries_read_the_first_occurrence_of_a_repeated_member()
    {
        using var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(new IndexDefinition("r", "ByA", "a"));
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("r", "r/1", """{"a":1,"b":"x","a":3,"b":"y"}"""u8);
            session.StoreRaw("r", "r/2", """{"a":2,"b":"y"}"""u8);
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            async Task<List<string>> Ids(IRawDocumentQuery query)
            {
                var documents = await query.ToListAsync();
                documents.ForEach(d => d.Dispose());
                return [.. documents.Select(d => d.Id)];
            }

            Assert.Equal(["r/1"], await Ids(session.QueryRaw("r").Where("a", QueryOperator.Equal, 1L)));
            Assert.Empty(await Ids(session.QueryRaw("r").Where("a", QueryOperator.Equal, 3L)));
            Assert.Equal(["r/1", "r/2"], await Ids(session.QueryRaw("r").Where("a", QueryOperator.LessThan, 3L).OrderBy("a")));
            Assert.Equal(["r/2"], await Ids(session.QueryRaw("r").Where("a", QueryOperator.GreaterThan, 0L).Where("b", QueryOperator.Equal, "y")));
        }

        store.CheckIntegrity();
    }

    // Numbers at the edges of int64, uint64 and double, and the other kinds of values.
    private static readonly string[] Scalars =
    [
        "0", "-0", "1", "-1", "1.5", "-0.0", "1e3", "1E+2", "9007199254740993", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616", "12345678901234567890",
        "1.8446744073709552e19", "true", "false", "null", "\"\"", "\"a\"", "\"\\u00e9\"", "\"a\\u0000b\"", "\"\U0001F600\"",
    ];

    private static readonly string[] Names = ["a", "b", "n", "\\u0061"];

    /// <summary>
    /// Property: for random documents with repeated members (nested too), the value an index reads
    /// at a single-value path is the one json_extract reads, in the index's encoding; an integer
    /// above int64 that json_extract reads as REAL keeps its exact value in the index, with the
    /// same nearest double (what SQL's reading of the index relies on, SD4).
    /// </summary>
    [Fact]
    public void Random_documents_give_the_index_the_value_json_extract_reads()
    {
        var seed = Voron.Testing.TestSeed.Next(output, nameof(Random_documents_give_the_index_the_value_json_extract_reads));
        var random = new Random(seed);
        using var sqlite = new SqliteConnection("Data Source=:memory:");
        sqlite.Open();
        string[] paths = ["a", "b", "n.a", "n.n.b"];
        var extractors = paths.Select(p => new JsonPathExtractor([JsonPath.Parse(p)])).ToArray();
        for (var i = 0; i < 2_000; i++)
        {
            var json = Document(random, 0);
            var bytes = Encoding.UTF8.GetBytes(json);
            var where = $"seed {seed}, document {i}: {json}";
            for (var p = 0; p < paths.Length; p++)
            {
                using var command = sqlite.CreateCommand();
                command.CommandText = "SELECT CASE json_type($j, $p) WHEN 'integer' THEN typeof(json_extract($j, $p)) ELSE json_type($j, $p) END, json_extract($j, $p)";
                command.Parameters.AddWithValue("$j", json);
                command.Parameters.AddWithValue("$p", "$." + paths[p]);
                using var reader = command.ExecuteReader();
                reader.Read();
                var type = reader.IsDBNull(0) ? "null" : reader.GetString(0); // json_type, but an integer beyond int64 is json_extract's REAL
                if (type is "object" or "array")
                {
                    Assert.Throws<ArgumentException>(() => extractors[p].Extract(bytes)); // not an index value
                    continue;
                }

                extractors[p].Extract(bytes);

                var key = new KeyBuilder();
                switch (type)
                {
                    case "null":
                        key.Append(IndexKey.Null);
                        break;
                    case "true":
                        key.Append(IndexKey.True);
                        break;
                    case "false":
                        key.Append(IndexKey.False);
                        break;
                    case "integer":
                        IndexKey.EncodeInteger(reader.GetInt64(1), key);
                        break;
                    case "real":
                        IndexKey.EncodeDouble(reader.GetDouble(1), key);
                        break;
                    default:
                        IndexKey.EncodeString(Encoding.UTF8.GetBytes(reader.GetString(1)), key);
                        break;
                }

                var expected = key.ToArray();
                var actual = Assert.Single(extractors[p].ValuesOf(0));
                if (type == "real" && actual[0] == IndexKey.Number && actual[9] != IndexKey.ExactMarker)
                {
                    // An integer beyond int64: exact in the index, REAL to json_extract; the nearest double is json_extract's.
                    Assert.True(expected.AsSpan(0, 9).SequenceEqual(actual.AsSpan(0, 9)), $"{where}: ${paths[p]}: the index's double {IndexKey.Describe(actual)} is not json_extract's {reader.GetDouble(1).ToString("R", CultureInfo.InvariantCulture)}");
                    continue;
                }

                Assert.True(expected.AsSpan().SequenceEqual(actual), $"{where}: ${paths[p]}: the index reads {IndexKey.Describe(actual)}, json_extract {IndexKey.Describe(expected)} ({type})");
            }
        }
    }

    private static string Document(Random random, int depth)
    {
        var members = new List<string>();
        for (var i = random.Next(0, 5); i > 0; i--)
        {
            var name = Names[random.Next(Names.Length)];
            var value = depth < 2 && random.Next(3) == 0 ? Document(random, depth + 1) : random.Next(8) == 0 ? "[1]" : Scalars[random.Next(Scalars.Length)];
            members.Add($"\"{name}\":{value}");
        }

        return "{" + string.Join(",", members) + "}";
    }
}
