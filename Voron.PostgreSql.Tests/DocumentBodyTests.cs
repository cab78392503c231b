using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using Voron.PostgreSql.Export;
using Xunit.Abstractions;

namespace Voron.PostgreSql.Tests;

/// <summary>PE5: the data column holds the document's id in its id property, and every other property as stored (no server needed).</summary>
public sealed class DocumentBodyTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData("{}", "{\"Id\":\"a/1\"}")]
    [InlineData(" { } ", " {\"Id\":\"a/1\" } ")]
    [InlineData("{\"x\":1}", "{\"Id\":\"a/1\",\"x\":1}")]
    [InlineData("{\"Id\":\"a/1\",\"x\":1}", "{\"Id\":\"a/1\",\"x\":1}")]
    [InlineData("{\"x\":{\"Id\":\"nested\"}}", "{\"Id\":\"a/1\",\"x\":{\"Id\":\"nested\"}}")]
    public void The_id_is_put_in_front_when_missing_and_the_bytes_kept_when_it_is_there(string stored, string expected) =>
        Assert.Equal(expected, Encoding.UTF8.GetString(DocumentBody.WithId(Encoding.UTF8.GetBytes(stored), "a/1", "Id")));

    [Fact]
    public void An_id_property_with_another_value_is_replaced_and_null_leaves_the_JSON_as_stored()
    {
        var replaced = JsonNode.Parse(DocumentBody.WithId("{\"Id\":\"old\",\"x\":[1,2]}"u8, "a/\"1\"", "Id"))!;
        Assert.Equal("a/\"1\"", (string?)replaced["Id"]);
        Assert.Equal("[1,2]", replaced["x"]!.ToJsonString());
        Assert.Equal("{\"Id\":5}", Encoding.UTF8.GetString(DocumentBody.WithId("{\"Id\":5}"u8, "a/1", null)));
    }

    [Fact]
    public void Random_documents_keep_every_property_and_carry_their_id()
    {
        var seed = TestSeed.Next(output, nameof(Random_documents_keep_every_property_and_carry_their_id));
        var random = new Random(seed);
        for (var round = 0; round < 2_000; round++)
        {
            var document = new JsonObject();
            var id = RandomString(random, 1, 12);
            var properties = random.Next(0, 6);
            for (var i = 0; i < properties; i++)
            {
                document[random.Next(5) == 0 ? "Id" : RandomString(random, 1, 6)] = RandomValue(random, 0);
            }

            var stored = document.ToJsonString(new JsonSerializerOptions { WriteIndented = random.Next(2) == 0 });
            var written = JsonNode.Parse(DocumentBody.WithId(Encoding.UTF8.GetBytes(stored), id, "Id"))!.AsObject();
            Assert.True((string?)written["Id"] == id, $"seed {seed}, round {round}: {stored} -> Id {written["Id"]?.ToJsonString()}, expected {id}");
            foreach (var (name, value) in document)
            {
                if (name != "Id")
                {
                    Assert.True(JsonNode.DeepEquals(value, written[name]), $"seed {seed}, round {round}: property {name} of {stored} changed");
                }
            }

            Assert.True(written.Count == document.Count + (document.ContainsKey("Id") ? 0 : 1), $"seed {seed}, round {round}: {stored} -> {written.ToJsonString()}");
        }
    }

    private static string RandomString(Random random, int min, int max)
    {
        const string alphabet = "abcXYZ019/é中\"\\ \u00FF\uFF21";
        return string.Concat(Enumerable.Range(0, random.Next(min, max + 1)).Select(_ => alphabet[random.Next(alphabet.Length)])) + (random.Next(8) == 0 ? "\U0001F600" : "");
    }

    private static JsonNode? RandomValue(Random random, int depth) => random.Next(depth > 2 ? 4 : 6) switch
    {
        0 => null,
        1 => JsonValue.Create(random.Next(-1000, 1000)),
        2 => JsonValue.Create(RandomString(random, 0, 8)),
        3 => JsonValue.Create(random.Next(2) == 0),
        4 => new JsonArray(Enumerable.Range(0, random.Next(0, 3)).Select(_ => RandomValue(random, depth + 1)).ToArray()),
        _ => new JsonObject(Enumerable.Range(0, random.Next(0, 3)).Select(i => KeyValuePair.Create("k" + i, RandomValue(random, depth + 1)))),
    };
}
