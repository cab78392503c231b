using Voron.Testing;

namespace Voron.Tests.Sql.Documents;

/// <summary>
/// Writes through voron_docs path columns (SD5): an UPDATE writes every column it SETs into the
/// new body, as <c>json_set(new body, path, value)</c> would, and nothing else; the rest of the
/// document keeps its bytes.
/// </summary>
public sealed class VoronDocsPathWriteTests(ITestOutputHelper output)
{
    private const string Create = "CREATE VIRTUAL TABLE t USING voron_docs(T, a='$.a', b='$.b', c='$.c', arr='$.arr')";

    private static async Task<(DocsStore Store, SqliteConnection Connection)> OpenAsync(string id, string json)
    {
        var store = new DocsStore();
        await store.StoreRawAsync("T", id, json);
        var connection = store.Open();
        connection.Execute(Create);
        return (store, connection);
    }

    /// <summary>
    /// The module compared each SET column with the old document's value and skipped the ones that
    /// looked unchanged, so SET body with a column equal to its old value kept the new body's value
    /// of the path. A column the statement SETs is now written into the new body, whatever it was.
    /// </summary>
    [Fact]
    public async Task Update_of_body_and_a_path_column_writes_the_column_into_the_new_body()
    {
        var (store, connection) = await OpenAsync("t/1", """{"a":1}""");
        using (store)
        using (connection)
        {
            connection.Execute("""UPDATE t SET body = '{"a":5,"k":"new"}', a = 1 WHERE id = 't/1'""");
            Assert.Equal(1L, connection.Value("SELECT a FROM t WHERE id = 't/1'"));
            Assert.Equal("""{"a":1,"k":"new"}""", (await store.LoadRawAsync("t/1"))!.Value.Json);
        }
    }

    /// <summary>SET c = NULL on a path the document lacks wrote nothing (NULL looked like the old, missing value); it writes JSON null.</summary>
    [Fact]
    public async Task Update_setting_a_missing_path_to_null_writes_json_null()
    {
        var (store, connection) = await OpenAsync("t/1", """{"a":1}""");
        using (store)
        using (connection)
        {
            connection.Execute("UPDATE t SET c = NULL WHERE id = 't/1'");
            Assert.Equal("null", connection.Value("SELECT json_type(body, '$.c') FROM t WHERE id = 't/1'"));
            Assert.Equal("""{"a":1,"c":null}""", (await store.LoadRawAsync("t/1"))!.Value.Json);
        }
    }

    /// <summary>SET b = 0 kept JSON false (false reads as 0, so the value looked unchanged); it writes the number, as json_set does.</summary>
    [Fact]
    public async Task Update_setting_a_false_path_to_zero_writes_the_number()
    {
        var (store, connection) = await OpenAsync("t/1", """{"b":false}""");
        using (store)
        using (connection)
        {
            connection.Execute("UPDATE t SET b = 0 WHERE id = 't/1'");
            Assert.Equal("integer", connection.Value("SELECT json_type(body, '$.b') FROM t WHERE id = 't/1'"));
            Assert.Equal("""{"b":0}""", (await store.LoadRawAsync("t/1"))!.Value.Json);
        }
    }

    /// <summary>
    /// Writing one path re-serialized the whole body through JsonNode: another member's text
    /// changed (["\u00e9"] became ["é"]), so WHERE arr = (its old value) stopped matching. Only the
    /// path's bytes are written now.
    /// </summary>
    [Fact]
    public async Task Update_of_one_path_keeps_every_other_byte_of_the_body()
    {
        const string Json = """{ "arr" : ["\u00e9", 1.50, "\/"],  "a":1 , "z" : {"k" : [ ]} }""";
        var (store, connection) = await OpenAsync("t/1", Json);
        using (store)
        using (connection)
        {
            var arr = connection.Value("SELECT arr FROM t WHERE id = 't/1'");
            Assert.Equal("""["\u00e9",1.50,"\/"]""", arr);
            connection.Execute("UPDATE t SET a = 2 WHERE id = 't/1'");
            Assert.Equal(Json.Replace("\"a\":1", "\"a\":2", StringComparison.Ordinal), (await store.LoadRawAsync("t/1"))!.Value.Json);
            Assert.Equal(1L, connection.Value("SELECT count(*) FROM t WHERE arr = $arr", ("$arr", arr)));

            connection.Execute("UPDATE t SET c = 'x' WHERE id = 't/1'");
            Assert.Equal(Json.Replace("\"a\":1", "\"a\":2", StringComparison.Ordinal).Replace("{\"k\" : [ ]}", "{\"k\" : [ ]},\"c\":\"x\"", StringComparison.Ordinal), (await store.LoadRawAsync("t/1"))!.Value.Json);
        }
    }

    /// <summary>
    /// A document with a repeated member name could not be updated through a path column (.NET's
    /// "An item with the same key has already been added"). The first occurrence is the one the
    /// column reads, and the one written, as json_extract and json_set do.
    /// </summary>
    [Fact]
    public async Task A_document_with_a_repeated_member_is_updated_at_the_first_occurrence_as_json_set_does()
    {
        const string Json = """{"a":1,"b":true,"a":2}""";
        var (store, connection) = await OpenAsync("t/1", Json);
        using (store)
        using (connection)
        {
            Assert.Equal(1L, connection.Value("SELECT a FROM t WHERE id = 't/1'"));
            connection.Execute("UPDATE t SET a = 3 WHERE id = 't/1'");
            Assert.Equal(3L, connection.Value("SELECT a FROM t WHERE id = 't/1'"));
            var expected = connection.Value("SELECT json_set($json, '$.a', 3)", ("$json", Json));
            Assert.Equal(expected, (await store.LoadRawAsync("t/1"))!.Value.Json);
            Assert.Equal("""{"a":3,"b":true,"a":2}""", expected);
        }
    }

    private static readonly string[] Names = ["a", "b", "c", "r", "n", "z", "\\u0061"];

    private static readonly object?[] Constants =
    [
        null, 0L, 1L, -1L, 42L, 9007199254740993L, long.MaxValue, 1.5, -2.25, 1e20, 0.1, -0.0, 100.0, 1.0 / 3, 2.5e-7,
        "x", "", "a\"b\\c", "\u00e9", "\U0001F600", "\uE000", "\n\t\u0001\u001f\u007f", "10", " 7 ", "1e3", "1.5", "[1,2]", "{\"k\":1}", "true", "a\0b",
    ];

    // The path columns of the property test, in column order: name, path, declared type.
    private static readonly (string Name, string Path, string Type)[] PathColumns =
    [
        ("a", "$.a", ""), ("b", "$.b", "TEXT"), ("c", "$.c", "INTEGER"), ("r", "$.r", "REAL"), ("x", "$.n.x", ""), ("y", "$.n.m.y", "NUMERIC"),
    ];

    /// <summary>
    /// Property (SD5): random UPDATEs of random documents — any set of path columns and the body,
    /// constants of every type (with each column's affinity), columns set from other columns or
    /// themselves, one row, several rows (SQLite's two-pass UPDATE) or UPDATE ... FROM — leave each
    /// document as <c>json_set(new body, path, value, ...)</c> leaves the same JSON in a plain
    /// table, byte for byte after <c>json()</c>, or fail with SQLITE_CONSTRAINT where a path runs
    /// through a value that is not an object (where json_set writes nothing). changes() counts
    /// the rows. Documents have repeated members, escapes and whitespace.
    /// </summary>
    [Fact]
    public async Task Random_updates_of_bodies_and_path_columns_leave_what_json_set_leaves_in_a_plain_table()
    {
        var seed = TestSeed.Next(output, nameof(Random_updates_of_bodies_and_path_columns_leave_what_json_set_leaves_in_a_plain_table));
        var random = new Random(seed);
        using var store = new DocsStore();
        using var connection = store.Open();
        var columns = string.Join(", ", PathColumns.Select(c => $"{c.Name}='{c.Path}'{(c.Type.Length > 0 ? " " + c.Type : "")}"));
        connection.Execute($"CREATE VIRTUAL TABLE d USING voron_docs(D, {columns})");
        connection.Execute("CREATE TABLE p(id TEXT PRIMARY KEY, body TEXT)");
        connection.Execute($"CREATE TABLE aff({string.Join(", ", PathColumns.Select(c => c.Name + (c.Type.Length > 0 ? " " + c.Type : "")))})");

        var ids = Enumerable.Range(1, 10).Select(i => $"d/{i}").ToList();
        foreach (var id in ids)
        {
            var json = Document(random, 0);
            if (random.Next(2) == 0)
            {
                await store.StoreRawAsync("D", id, json);
            }
            else
            {
                connection.Execute("INSERT INTO d(id, body) VALUES ($id, $body)", ("$id", id), ("$body", json));
            }

            connection.Execute("INSERT INTO p(id, body) VALUES ($id, $body)", ("$id", id), ("$body", json));
        }

        var statements = 250;
        for (var s = 0; s < statements; s++)
        {
            // The statement: SET items (column, constant or another column), and the rows.
            var setBody = random.Next(4) == 0;
            var sets = new List<(int Column, object? Constant, int From)>(); // From: -1 constant, -2 the old body, else a path column
            var order = Enumerable.Range(0, PathColumns.Length).OrderBy(_ => random.Next()).Take(random.Next(setBody ? 0 : 1, 4)).Order().ToList();
            foreach (var column in order)
            {
                sets.Add(random.Next(5) == 0 ? (column, null, random.Next(PathColumns.Length)) : (column, Constants[random.Next(Constants.Length)], -1));
            }

            object? bodyValue = null;
            var bodyFromOld = false;
            if (setBody)
            {
                bodyFromOld = random.Next(3) == 0;
                bodyValue = bodyFromOld ? null : random.Next(8) == 0 ? null : Document(random, 0);
            }

            var targets = ids.OrderBy(_ => random.Next()).Take(random.Next(1, 4)).Order(StringComparer.Ordinal).ToList();
            if (random.Next(6) == 0)
            {
                targets.Add("d/none");
            }

            var shape = targets.Count == 1 ? random.Next(2) : 2 + random.Next(2); // 0, 1: one row (= or FROM); 2: IN; 3: FROM over several
            var parameters = new List<(string Name, object? Value)>();
            var items = new List<string>();
            if (setBody)
            {
                items.Add(bodyFromOld ? "body = body" : "body = $body");
                if (!bodyFromOld)
                {
                    parameters.Add(("$body", bodyValue));
                }
            }

            for (var i = 0; i < sets.Count; i++)
            {
                var (column, constant, from) = sets[i];
                if (from >= 0)
                {
                    items.Add($"{PathColumns[column].Name} = {PathColumns[from].Name}");
                }
                else
                {
                    items.Add($"{PathColumns[column].Name} = $v{i}");
                    parameters.Add(($"$v{i}", constant));
                }
            }

            var list = string.Join(", ", targets.Select((_, i) => "$id" + i.ToString(CultureInfo.InvariantCulture)));
            parameters.AddRange(targets.Select((id, i) => ("$id" + i.ToString(CultureInfo.InvariantCulture), (object?)id)));
            var sql = shape switch
            {
                0 => $"UPDATE d SET {string.Join(", ", items)} WHERE id = $id0",
                2 => $"UPDATE d SET {string.Join(", ", items)} WHERE id IN ({list})",
                _ => $"UPDATE d SET {string.Join(", ", items)} FROM (SELECT value AS k FROM json_each($ids)) AS s WHERE d.id = s.k",
            };
            if (shape is 1 or 3)
            {
                parameters.Add(("$ids", "[" + string.Join(",", targets.Select(t => "\"" + t + "\"")) + "]"));
            }

            var where = $"seed {seed}, statement {s}: {sql} with {string.Join(", ", parameters.Select(p => $"{p.Name} = {DocsSql.Show(p.Value)}"))}";

            // The model: each existing target's new JSON by json_set, or the reason the statement fails.
            var expected = new Dictionary<string, string>(StringComparer.Ordinal);
            string? refusal = null;
            foreach (var id in targets)
            {
                if (connection.Value("SELECT body FROM p WHERE id = $id", ("$id", id)) is not string old)
                {
                    continue;
                }

                var json = setBody ? bodyFromOld ? old : (string?)bodyValue ?? "{}" : old;
                foreach (var (column, constant, from) in sets)
                {
                    var value = from >= 0 ? connection.Value($"SELECT json_extract($old, '{PathColumns[from].Path}')", ("$old", old)) : constant;
                    value = WithAffinity(connection, column, value);
                    var path = PathColumns[column].Path;
                    var through = path.Split('.')[1..^1];
                    for (var depth = 1; depth <= through.Length && refusal == null; depth++)
                    {
                        var prefix = "$." + string.Join(".", through[..depth]);
                        if (connection.Value("SELECT json_type($json, $path)", ("$json", json), ("$path", prefix)) is string type && type != "object")
                        {
                            refusal = $"'{id}': {path} runs through {prefix}, a JSON {type}";
                        }
                    }

                    json = (string)connection.Value("SELECT json_set($json, $path, $v)", ("$json", json), ("$path", path), ("$v", value))!;
                }

                expected[id] = json;
            }

            int changed;
            try
            {
                changed = connection.Execute(sql, [.. parameters]);
            }
            catch (SqliteException e) when (e.SqliteErrorCode == 19 && refusal != null)
            {
                Assert.Contains("not an object", e.Message, StringComparison.Ordinal);
                await CompareAllAsync(store, connection, ids, where + " (refused)");
                continue;
            }
            catch (SqliteException e)
            {
                throw new Xunit.Sdk.XunitException($"{where}: failed with {e.SqliteErrorCode} {e.Message}");
            }

            Assert.True(refusal == null, $"{where}: succeeded, but {refusal}");
            Assert.True(expected.Count == changed, $"{where}: changes() {changed}, {expected.Count} rows exist");
            foreach (var (id, json) in expected)
            {
                connection.Execute("UPDATE p SET body = $json WHERE id = $id", ("$id", id), ("$json", json));
            }

            await CompareAllAsync(store, connection, ids, where);
        }

        output.WriteLine($"{statements} statements over {ids.Count} documents");
        store.Documents.CheckIntegrity();
    }

    /// <summary>Every document: json() of the stored JSON equals json() of the model's, and every path column reads what json_extract reads there.</summary>
    private static async Task CompareAllAsync(DocsStore store, SqliteConnection connection, List<string> ids, string where)
    {
        var select = string.Join(", ", PathColumns.Select(c => $"{c.Name}, typeof({c.Name})"));
        var extract = string.Join(", ", PathColumns.Select(c => $"json_extract(body, '{c.Path}'), typeof(json_extract(body, '{c.Path}'))"));
        foreach (var id in ids)
        {
            var model = (string)connection.Value("SELECT json(body) FROM p WHERE id = $id", ("$id", id))!;
            var stored = (await store.LoadRawAsync(id))!.Value.Json;
            var actual = (string)connection.Value("SELECT json($json)", ("$json", stored))!;
            Assert.True(model == actual, $"{where}\n  document {id}: json() of the stored JSON\n  {actual}\n  is not json() of json_set's\n  {model}\n  (stored: {stored})");
            var columns = DocsSql.Show(connection.Query($"SELECT {select} FROM d WHERE id = $id", ("$id", id)).Single());
            var json = DocsSql.Show(connection.Query($"SELECT {extract} FROM p WHERE id = $id", ("$id", id)).Single());
            Assert.True(columns == json, $"{where}\n  document {id}: the columns read {columns}\n  json_extract reads {json}");
        }
    }

    /// <summary>The value as a table column declared like path column <paramref name="column"/> stores it (SQLite's affinity).</summary>
    private static object? WithAffinity(SqliteConnection connection, int column, object? value)
    {
        connection.Execute("DELETE FROM aff");
        connection.Execute($"INSERT INTO aff({PathColumns[column].Name}) VALUES ($v)", ("$v", value));
        return connection.Value($"SELECT {PathColumns[column].Name} FROM aff");
    }

    /// <summary>A random JSON object as text: random whitespace, escapes, repeated members, an object at n (with x and m.y) or a scalar there.</summary>
    private static string Document(Random random, int depth)
    {
        var members = new List<string>();
        var count = random.Next(depth == 0 ? 1 : 0, 6);
        for (var i = 0; i < count; i++)
        {
            var name = Names[random.Next(Names.Length)];
            var value = name == "n" && depth < 2 && random.Next(4) != 0 ? Nested(random, depth) : Value(random, depth);
            members.Add($"{Space(random)}\"{name}\"{Space(random)}:{Space(random)}{value}{Space(random)}");
        }

        return "{" + string.Join(",", members) + (members.Count == 0 ? Space(random) : "") + "}";
    }

    private static string Nested(Random random, int depth)
    {
        var members = new List<string>();
        if (random.Next(3) != 0)
        {
            members.Add($"\"x\":{Value(random, depth + 1)}");
        }

        if (random.Next(3) != 0)
        {
            members.Add(random.Next(3) == 0 ? $"\"m\":{Value(random, depth + 1)}" : $"\"m\" : {{ \"y\" : {Value(random, depth + 1)} }}");
        }

        if (random.Next(5) == 0)
        {
            members.Add($"\"x\":{Value(random, depth + 1)}"); // a repeated member
        }

        return "{" + string.Join(", ", members.OrderBy(_ => random.Next())) + "}";
    }

    private static string Value(Random random, int depth) => random.Next(14) switch
    {
        0 => "null",
        1 => "true",
        2 => "false",
        3 => random.Next(-5, 100).ToString(CultureInfo.InvariantCulture),
        4 => "1.50",
        5 => "-0.0",
        6 => "1e3",
        7 => "18446744073709551615",
        8 => "\"\\u00e9\\n\"",
        9 => "\"\u00e9\U0001F600\"",
        10 => "\"\\/x\"",
        11 => depth < 2 ? Document(random, depth + 1) : "{}",
        12 => "[ \"\\u00e9\" , 1 , [ ] ]",
        _ => "\"10\"",
    };

    private static string Space(Random random) => random.Next(4) switch
    {
        0 => " ",
        1 => "\n  ",
        _ => "",
    };
}
