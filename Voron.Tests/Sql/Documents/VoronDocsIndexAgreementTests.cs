namespace Voron.Tests.Sql.Documents;

/// <summary>
/// SD4: an index plan returns a superset of the rows SQLite keeps, so indexed and unindexed
/// queries agree with json_extract over a plain table, even where the index's reading of a value
/// and json_extract's differ.
/// </summary>
public sealed class VoronDocsIndexAgreementTests
{
    // Integers around 2^63 and 2^64: json_extract reads those above int64 as REAL (their nearest
    // double), the index keeps them exact.
    private static readonly string[] Numbers =
    [
        "18446744073709551615", "18446744073709551614", "18446744073709549568", "18446744073709551616", "12345678901234567890",
        "9223372036854775808", "9223372036854775809", "9223372036854777856", "9223372036854775807", "9223372036854775806",
        "9223372036854774784", "1.8446744073709552e19", "9.223372036854775808e18", "1", "\"x\"",
    ];

    private static async Task<(DocsStore Store, SqliteConnection Connection)> OpenAsync(params IndexDefinition[] indexes)
    {
        var store = new DocsStore();
        foreach (var index in indexes)
        {
            await store.Documents.EnsureIndexAsync(index);
        }

        for (var i = 0; i < Numbers.Length; i++)
        {
            await store.StoreRawAsync("N", $"n/{i:D2}", $$"""{"a":{{Numbers[i]}},"b":"{{(i % 2 == 0 ? "x" : "y")}}"}""");
        }

        var connection = store.Open();
        connection.Execute("CREATE VIRTUAL TABLE t USING voron_docs(N, a='$.a', b='$.b')");
        connection.Execute("CREATE TABLE p(id TEXT PRIMARY KEY, body TEXT)");
        connection.Execute("INSERT INTO p SELECT id, body FROM t");
        connection.Execute("CREATE VIEW pv AS SELECT id, body, json_extract(body, '$.a') AS a, json_extract(body, '$.b') AS b FROM p");
        return (store, connection);
    }

    private static void AssertSameRows(SqliteConnection connection, string query, string mustPlan)
    {
        var plan = string.Join(" | ", connection.Query("EXPLAIN QUERY PLAN " + string.Format(query, "t")).Select(r => r[3]));
        Assert.Contains(mustPlan, plan, StringComparison.Ordinal);
        var expected = connection.Query(string.Format(query, "pv")).Select(DocsSql.Show).ToList();
        var actual = connection.Query(string.Format(query, "t")).Select(DocsSql.Show).ToList();
        Assert.True(expected.Count > 0, $"{query}: the plain table finds no rows; the test needs some");
        Assert.True(expected.SequenceEqual(actual), $"{query} ({plan})\n  expected {string.Join(" ", expected)}\n  actual   {string.Join(" ", actual)}");
    }

    /// <summary>
    /// An integer between 2^63 and 2^64 is REAL to json_extract but an exact integer in the index
    /// (a double and a remainder): <c>a = 18446744073709551615.0</c> found nothing with an index and
    /// matched without one. A REAL constant in that range now reads every key of its double.
    /// </summary>
    [Theory]
    [InlineData("a = 18446744073709551615.0")]
    [InlineData("a = 9223372036854775808.0")]
    [InlineData("a >= 18446744073709551615.0")]
    [InlineData("a > 18446744073709549568.0")]
    [InlineData("a <= 9223372036854775808.0")]
    [InlineData("a < 9223372036854775808.0 AND a > 1")]
    [InlineData("a BETWEEN 9223372036854775808.0 AND 9223372036854777856.0")]
    [InlineData("a > 9223372036854775807 AND a < 1.8446744073709552e19")]
    [InlineData("a IN (1.8446744073709552e19, 9.223372036854775808e18)")]
    public async Task An_indexed_query_with_a_real_constant_from_2_63_to_2_64_finds_what_json_extract_finds(string condition)
    {
        var (store, connection) = await OpenAsync(new IndexDefinition("N", "ByA", "a"), new IndexDefinition("N", "ByBA", "b", "a"), new IndexDefinition("N", "ByAB", "a", "b"));
        using (store)
        using (connection)
        {
            AssertSameRows(connection, $"SELECT id, a, typeof(a) FROM {{0}} WHERE {condition} ORDER BY id", "index ");
            AssertSameRows(connection, $"SELECT id, a FROM {{0}} WHERE {condition} ORDER BY a, id", "index ");
            AssertSameRows(connection, $"SELECT a FROM {{0}} WHERE {condition} ORDER BY a", "index ");
            AssertSameRows(connection, $"SELECT a FROM {{0}} WHERE {condition} ORDER BY a DESC LIMIT 3", "index ");
            AssertSameRows(connection, $"SELECT id FROM {{0}} WHERE b = 'x' AND {condition} ORDER BY id", "index ");
            AssertSameRows(connection, $"SELECT id, b FROM {{0}} WHERE {condition} AND b >= 'x' ORDER BY id", "index ");
            AssertSameRows(connection, $"SELECT b FROM {{0}} WHERE {condition} ORDER BY b DESC", "index ");
        }
    }

    /// <summary>
    /// With a repeated member name the index kept the last value (JsonPathExtractor) where the
    /// column and json_extract read the first: <c>WHERE a = 1</c> on {"a":1,"a":2} found nothing
    /// with an index. Every reading of a path now takes the first occurrence.
    /// </summary>
    [Fact]
    public async Task An_indexed_query_finds_a_document_by_the_first_of_a_repeated_member_as_json_extract_does()
    {
        var (store, connection) = await OpenAsync(new IndexDefinition("N", "ByA", "a"), new IndexDefinition("N", "ByNx", "n.x"));
        using (store)
        using (connection)
        {
            connection.Execute("""INSERT INTO t(id, body) VALUES ('d/1', '{"a":1,"a":2}'), ('d/2', '{"a":2}'), ('d/3', '{"n":{"y":1},"n":{"x":7}}'), ('d/4', '{"n":{"x":7},"n":{"x":8}}')""");
            connection.Execute("INSERT INTO p SELECT id, body FROM t WHERE id LIKE 'd/%'");
            connection.Execute("CREATE VIRTUAL TABLE tn USING voron_docs(N, x='$.n.x')");
            AssertSameRows(connection, "SELECT id FROM {0} WHERE a = 1 ORDER BY id", "index ByA");
            AssertSameRows(connection, "SELECT id FROM {0} WHERE a = 2 ORDER BY id", "index ByA");
            AssertSameRows(connection, "SELECT id, a FROM {0} WHERE a BETWEEN 1 AND 2 ORDER BY a, id", "index ByA");
            Assert.Equal(["d/4"], connection.Query("SELECT id FROM tn WHERE x = 7").Select(r => r[0]));
            Assert.Empty(connection.Query("SELECT id FROM tn WHERE x = 8"));
            Assert.Contains("index ByNx", string.Join(" ", connection.Query("EXPLAIN QUERY PLAN SELECT id FROM tn WHERE x = 7").Select(r => r[3])), StringComparison.Ordinal);
            store.Documents.CheckIntegrity();
        }
    }
}
