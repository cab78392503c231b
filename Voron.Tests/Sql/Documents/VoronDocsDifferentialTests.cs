namespace Voron.Tests.Sql.Documents;

/// <summary>
/// Seeded differential test of voron_docs: the same random JSON documents live in a
/// voron_docs table <c>d</c> (path columns declared without a type, so SQLite applies no affinity)
/// and in a plain table <c>p(id TEXT PRIMARY KEY, body TEXT)</c> of the same database, read there
/// through the view <c>pv</c> of <c>json_extract(body, '$.x')</c> columns. Random queries (=, &lt;,
/// &gt;, BETWEEN, IN, IS NULL, id =, id IN, id ranges, ORDER BY, LIMIT/OFFSET, DISTINCT, joins of
/// the two) must return the same rows on both: as ordered lists under a total ORDER BY, as
/// multisets otherwise. Half the documents are written through SQL and half through document
/// sessions (raw JSON); later rounds run with IndexDefinitions on the paths, so plans that use
/// the store's indexes give the same rows as scans. The seed is printed; VORON_SEED replays it,
/// and VORON_SOAK raises the number of rounds.
/// </summary>
public sealed class VoronDocsDifferentialTests(ITestOutputHelper output)
{
    private const string Collection = "Item";
    private const int Documents = 80;
    private const int QueriesPerRound = 60;

    // Scalars, as JSON text: integers beyond 2^53, 2^63 and 2^64 (json_extract reads those above
    // int64 as REAL, the index keeps them exact), -0.0, exponents, strings with NUL, combining and
    // astral characters (raw and escaped), numeric-looking strings, booleans, null.
    private static readonly string[] Scalars =
    [
        "0", "1", "-1", "2", "7", "42", "1.5", "-2.25", "0.0", "-0.0", "1e3", "2.5E-3",
        "9007199254740992", "9007199254740993", "-9007199254740993", "9223372036854775807", "-9223372036854775808", "18446744073709551616",
        "18446744073709551615", "18446744073709551614", "9223372036854775808", "9223372036854775809", "12345678901234567890",
        "\"\"", "\"a\"", "\"A\"", "\"b\"", "\"a\\u0000b\"", "\"a\\u0000\"", "\"\u00e9\"", "\"e\\u0301\"", "\"\u65e5\u672c\"",
        "\"\U0001F600\"", "\"\\ud83d\\ude00\"", "\"10\"", "\"1.5\"", "\"true\"",
        "true", "false", "null",
    ];

    // What only the unindexed column c holds besides scalars: arrays and objects.
    private static readonly string[] Composites = ["[]", "[1,2]", "[\"x\",null,true]", "{}", "{\"x\":1}", "{\"y\":[false,{\"z\":\"\u00e9\"}]}"];

    // SQL literals the random WHERE clauses compare with: the same kinds of values as SQL sees them.
    private static readonly string[] Literals =
    [
        "0", "1", "-1", "2", "7", "42", "1.5", "-2.25", "0.0", "-0.0", "1000.0", "0.0025",
        "9007199254740992", "9007199254740993", "-9007199254740993", "9223372036854775807", "-9223372036854775808", "1.8446744073709552e19",
        "18446744073709551615.0", "9.223372036854775808e18", "1.2345678901234567e19",
        "''", "'a'", "'A'", "'b'", "char(97, 0, 98)", "'\u00e9'", "'\u65e5\u672c'", "'\U0001F600'", "'10'", "'1.5'", "'true'", "'[1,2]'", "'{\"x\":1}'",
        "NULL",
    ];

    private static readonly string[] Columns = ["a", "b", "c", "n"];
    private static readonly string[] Comparisons = ["=", "<", ">", "<=", ">=", "<>", "IS", "IS NOT"];

    [Fact]
    public async Task Random_queries_over_documents_give_the_same_rows_as_json_extract_over_a_plain_table()
    {
        var seed = TestSeed.Next(output, nameof(Random_queries_over_documents_give_the_same_rows_as_json_extract_over_a_plain_table));
        var random = new Random(seed);
        var clock = System.Diagnostics.Stopwatch.StartNew();
        var rounds = CrashBudget.Count(4, 0.0002);
        using var store = new DocsStore();
        using var connection = store.Open();
        connection.Execute($"CREATE VIRTUAL TABLE d USING voron_docs({Collection}, a='$.a', b='$.b', c='$.c', n='$.n.x')");
        connection.Execute("CREATE TABLE p(id TEXT PRIMARY KEY, body TEXT)");
        connection.Execute("""
            CREATE VIEW pv AS SELECT id, body, json_extract(body, '$.a') AS a, json_extract(body, '$.b') AS b,
                json_extract(body, '$.c') AS c, json_extract(body, '$.n.x') AS n FROM p
            """);

        var ids = new List<string>();
        var pool = Enumerable.Range(0, 400).Select(i => random.Next(8) == 0 ? $"k/\u00fc{i}" : $"k/{i}").Distinct().OrderBy(_ => random.Next()).ToList();
        for (var i = 0; i < Documents; i++)
        {
            var id = pool[i];
            await WriteAsync(store, connection, random, id, Document(random), insert: true, $"seed {seed}, document {id}");
            ids.Add(id);
        }

        var next = Documents;
        var queries = 0;
        output.WriteLine($"{Documents} documents written in {clock.ElapsedMilliseconds} ms");
        for (var round = 0; round < rounds; round++)
        {
            var indexed = round >= rounds / 2;
            if (indexed && round == rounds / 2)
            {
                // The same documents, now with the store's indexes on the paths: plans change, rows must not.
                await store.Documents.EnsureIndexAsync(new IndexDefinition(Collection, "ByA", "a"));
                await store.Documents.EnsureIndexAsync(new IndexDefinition(Collection, "ByBA", "b", "a"));
                await store.Documents.EnsureIndexAsync(new IndexDefinition(Collection, "ByNx", "n.x"));
            }

            await CompareEverythingAsync(store, connection, $"seed {seed}, round {round} start");
            output.WriteLine($"round {round} starts at {clock.ElapsedMilliseconds} ms");
            for (var q = 0; q < QueriesPerRound; q++, queries++)
            {
                var parameters = new List<(string Name, object? Value)>();
                var (query, ordered, loose) = Query(random, ids, parameters);
                var bound = parameters.Count == 0 ? "" : " with " + string.Join(", ", parameters.Select(p => $"{p.Name} = {DocsSql.Show(p.Value)}"));
                var where = $"seed {seed}, round {round} ({(indexed ? "with" : "without")} indexes), query {q}{bound}";
                Compare(connection, query, ordered, where, loose, parameters);
            }

            if (indexed)
            {
                // The same kind of queries inside a transaction that changed the collection itself:
                // index plans leave the changed documents out of the snapshot's range and merge
                // them back in as the transaction sees them (SD4); the rows must still be the
                // plain table's. Rolled back on both sides.
                connection.Execute("BEGIN IMMEDIATE");
                for (var m = 0; m < 8; m++)
                {
                    var where = $"seed {seed}, round {round}, uncommitted change {m}";
                    var id = random.Next(4) == 0 && next + m < pool.Count ? pool[next + m] : ids[random.Next(ids.Count)];
                    switch (random.Next(3))
                    {
                        case 0 when ids.Contains(id):
                            PathUpdate(connection, random, id, where);
                            break;
                        case 1 when ids.Contains(id):
                            connection.Execute("DELETE FROM d WHERE id = $id", ("$id", id));
                            connection.Execute("DELETE FROM p WHERE id = $id", ("$id", id));
                            break;
                        default:
                            var json = Document(random);
                            connection.Execute("INSERT OR REPLACE INTO d(id, body) VALUES ($id, $body)", ("$id", id), ("$body", json));
                            connection.Execute("INSERT OR REPLACE INTO p(id, body) VALUES ($id, $body)", ("$id", id), ("$body", json));
                            break;
                    }
                }

                for (var q = 0; q < QueriesPerRound / 2; q++, queries++)
                {
                    var parameters = new List<(string Name, object? Value)>();
                    var (query, ordered, loose) = Query(random, ids, parameters);
                    var bound = parameters.Count == 0 ? "" : " with " + string.Join(", ", parameters.Select(p => $"{p.Name} = {DocsSql.Show(p.Value)}"));
                    Compare(connection, query, ordered, $"seed {seed}, round {round}, in a transaction with its own changes, query {q}{bound}", loose, parameters);
                }

                connection.Execute("ROLLBACK");
            }

            // Change some documents through both doors before the next round.
            for (var m = 0; m < 12; m++)
            {
                var where = $"seed {seed}, round {round}, change {m}";
                switch (random.Next(6))
                {
                    case 0 or 1:
                        await WriteAsync(store, connection, random, ids[random.Next(ids.Count)], Document(random), insert: false, where);
                        break;
                    case 2:
                        PathUpdate(connection, random, ids[random.Next(ids.Count)], where);
                        break;
                    case 3:
                        if (ids.Count > 10)
                        {
                            var id = ids[random.Next(ids.Count)];
                            if (random.Next(2) == 0)
                            {
                                connection.Execute("DELETE FROM d WHERE id = $id", ("$id", id));
                            }
                            else
                            {
                                await using var session = store.Documents.OpenSession();
                                session.Delete(id);
                                await session.SaveChangesAsync();
                            }

                            connection.Execute("DELETE FROM p WHERE id = $id", ("$id", id));
                            ids.Remove(id);
                        }

                        break;
                    default:
                        if (next < pool.Count)
                        {
                            var id = pool[next++];
                            await WriteAsync(store, connection, random, id, Document(random), insert: true, where);
                            ids.Add(id);
                        }

                        break;
                }
            }
        }

        await CompareEverythingAsync(store, connection, $"seed {seed}, end");
        output.WriteLine($"{queries} queries over {rounds} rounds, {ids.Count} documents at the end");
        Assert.Equal("ok", connection.IntegrityCheck());
        store.Documents.CheckIntegrity();
    }

    /// <summary>A random JSON object with fields a, b (scalars), c (anything), n (an object holding x, or a scalar), some missing, some repeated, in random order.</summary>
    private static string Document(Random random)
    {
        var fields = new List<string>();
        if (random.Next(6) != 0)
        {
            fields.Add($"\"a\":{Scalar(random)}");
        }

        if (random.Next(6) != 0)
        {
            fields.Add($"\"b\":{Scalar(random)}");
        }

        if (random.Next(6) != 0)
        {
            fields.Add($"\"c\":{(random.Next(3) == 0 ? Composites[random.Next(Composites.Length)] : Scalar(random))}");
        }

        switch (random.Next(4))
        {
            case 0:
                break;
            case 1:
                fields.Add($"\"n\":{Scalar(random)}");
                break;
            default:
                fields.Add(random.Next(5) == 0 ? "\"n\":{\"y\":1}" : $"\"n\":{{\"x\":{Scalar(random)},\"w\":[1]}}");
                break;
        }

        if (random.Next(4) == 0)
        {
            fields.Add("\"other\":{\"deep\":[1,{\"e\":\"\u00e9\"}]}");
        }

        if (random.Next(5) == 0)
        {
            // A repeated member: json_extract, the columns and the indexes read its first occurrence.
            fields.Add(random.Next(3) switch
            {
                0 => $"\"a\":{Scalar(random)}",
                1 => $"\"b\":{Scalar(random)}",
                _ => $"\"n\":{{\"x\":{Scalar(random)}}}",
            });
        }

        var separator = random.Next(3) == 0 ? ", " : ",";
        return "{" + string.Join(separator, fields.OrderBy(_ => random.Next())) + "}";
    }

    // Small values more often, so that equality and IN find rows.
    private static string Scalar(Random random) => Scalars[random.Next(2) == 0 ? random.Next(8) : random.Next(Scalars.Length)];

    /// <summary>Writes document <paramref name="id"/> through SQL or a session at random, and the same JSON into the plain table.</summary>
    private static async Task WriteAsync(DocsStore store, SqliteConnection connection, Random random, string id, string json, bool insert, string where)
    {
        switch (random.Next(3))
        {
            case 0:
                await store.StoreRawAsync(Collection, id, json);
                break;
            case 1 when !insert:
                connection.Execute("UPDATE d SET body = $body WHERE id = $id", ("$id", id), ("$body", json));
                break;
            default:
                connection.Execute(insert ? "INSERT INTO d(id, body) VALUES ($id, $body)" : "INSERT OR REPLACE INTO d(id, body) VALUES ($id, $body)", ("$id", id), ("$body", json));
                break;
        }

        connection.Execute("INSERT OR REPLACE INTO p(id, body) VALUES ($id, $body)", ("$id", id), ("$body", json));
        var stored = await store.LoadRawAsync(id);
        Assert.True(stored != null, $"{where}: document {id} written but not found by a session");
        Assert.True(json == stored.Value.Json, $"{where}: document {id} stored as {stored.Value.Json}, written as {json}");
    }

    /// <summary>
    /// Sets a path column through SQL and the same path with json_set on the plain side; the
    /// columns must then agree. The plain table then takes the module's body, whose text may be
    /// formatted otherwise than json_set's.
    /// </summary>
    private static void PathUpdate(SqliteConnection connection, Random random, string id, string where)
    {
        var column = Columns[random.Next(3)];
        object? value = random.Next(9) switch
        {
            0 => null,
            1 => 9007199254740993L,
            2 => -0.0,
            3 => 1.5,
            4 => "a\0b",
            5 => "\u65e5\u672c",
            6 => "10",
            7 => (long)random.Next(-3, 50),
            _ => "a",
        };
        connection.Execute($"UPDATE d SET {column} = $v WHERE id = $id", ("$id", id), ("$v", value));
        connection.Execute($"UPDATE p SET body = json_set(body, '$.{column}', $v) WHERE id = $id", ("$id", id), ("$v", value));
        // Loose: numbers compare by value (both sides write REAL -0.0 as 0.0, as SQLite's printf
        // does, but a document may hold -0.0); typeof() still compares the types exactly.
        Compare(connection, "SELECT id, a, typeof(a), b, typeof(b), c, typeof(c), n FROM {0} WHERE id = " + Quote(id), ordered: true, $"{where}: SET {column} = {DocsSql.Show(value)}", loose: true);
        connection.Execute("UPDATE p SET body = (SELECT body FROM d WHERE id = $id) WHERE id = $id", ("$id", id));
    }

    /// <summary>Whole-table comparisons: the view and the table, the eponymous table, and what sessions read.</summary>
    private static async Task CompareEverythingAsync(DocsStore store, SqliteConnection connection, string where)
    {
        Compare(connection, "SELECT id, body, a, typeof(a), b, typeof(b), c, typeof(c), n, typeof(n) FROM {0} ORDER BY id", ordered: true, where);
        var plain = connection.Query("SELECT id, body FROM p ORDER BY id");
        var eponymous = connection.Query($"SELECT id, body FROM voron_collection('{Collection}') ORDER BY id");
        AssertSame(plain, eponymous, ordered: true, $"{where}: voron_collection('{Collection}')");
        var sessions = (await store.CollectionAsync(Collection)).Select(d => new object?[] { d.Id, d.Json }).ToList();
        AssertSame(plain, sessions, ordered: true, $"{where}: the documents sessions read");
    }

    /// <summary>
    /// A random query as a format string: {0} and {1} are the tables (d or pv; pv, pv for the
    /// expected rows). Whether the ORDER BY is total (then rows compare as ordered lists).
    /// </summary>
    private static (string Sql, bool Ordered, bool Loose) Query(Random random, List<string> ids, List<(string Name, object? Value)> parameters)
    {
        if (random.Next(5) == 0)
        {
            return Join(random, parameters);
        }

        var where = Where(random, ids, "", parameters);
        var column = Columns[random.Next(Columns.Length)];
        var whereClause = where.Length == 0 ? "" : " WHERE " + where;
        switch (random.Next(7))
        {
            case 0:
                return ($"SELECT count(*) FROM {{0}}{whereClause}", true, false);
            case 1:
                // DISTINCT keeps one of several values that compare equal (0, 0.0, -0.0), whichever
                // it meets first: compared loosely (see Compare).
                return ($"SELECT DISTINCT {column} FROM {{0}}{whereClause}", false, true);
            default:
            {
                var select = random.Next(3) switch
                {
                    0 => "id",
                    1 => "id, a, b, c, n",
                    _ => $"id, body, {column}, typeof({column})",
                };
                switch (random.Next(3))
                {
                    case 0:
                        return ($"SELECT {select} FROM {{0}}{whereClause}", false, false);
                    default:
                    {
                        // Module defect (VoronDocsTests.Id_in_with_order_by_id_desc_returns_the_ids_descending,
                        // skipped): on one connection an id IN plan returns its rows in the direction of the
                        // first such query, whatever the later ORDER BY says. Until it is fixed, id IN
                        // queries here sort ascending only; set this false to test both directions.
                        var desc = random.Next(2) == 0 ? " DESC" : "";
                        var order = random.Next(3) == 0 ? $" ORDER BY id{desc}" : $" ORDER BY {column}{desc}, id" + (random.Next(2) == 0 ? " DESC" : "");
                        var limit = random.Next(3) switch
                        {
                            0 => "",
                            1 => $" LIMIT {random.Next(0, 12)}",
                            _ => $" LIMIT {random.Next(1, 12)} OFFSET {random.Next(0, 30)}",
                        };
                        return ($"SELECT {select} FROM {{0}}{whereClause}{order}{limit}", true, false);
                    }
                }
            }
        }
    }

    private static (string Sql, bool Ordered, bool Loose) Join(Random random, List<(string Name, object? Value)> parameters)
    {
        var left = Columns[random.Next(Columns.Length)];
        var right = Columns[random.Next(Columns.Length)];
        var filter = random.Next(2) == 0 ? "" : $" AND x.{Columns[random.Next(Columns.Length)]} {Comparisons[random.Next(5)]} {Literal(random, parameters)}";
        return random.Next(4) switch
        {
            0 => ($"SELECT x.id, y.id FROM {{0}} x JOIN {{1}} y ON x.{left} = y.{right}{filter}", false, false),
            1 => ($"SELECT x.id, y.id, y.{right} FROM {{0}} x LEFT JOIN {{1}} y ON x.{left} = y.{right}{filter} ORDER BY x.id, y.id", true, false),
            2 => ($"SELECT x.id, x.{left}, y.{right} FROM {{0}} x JOIN {{1}} y ON y.id = x.id WHERE x.{left} IS NOT y.{right}{filter} ORDER BY x.id", true, false),
            _ => ($"SELECT x.{left}, count(*) FROM {{0}} x JOIN {{1}} y ON x.{left} = y.{right} GROUP BY x.{left}", false, true),
        };
    }

    private static string Where(Random random, List<string> ids, string prefix, List<(string Name, object? Value)> parameters)
    {
        var parts = new List<string>();
        var count = random.Next(4);
        for (var i = 0; i < count; i++)
        {
            var column = prefix + Columns[random.Next(Columns.Length)];
            var literal = Literal(random, parameters);
            parts.Add(random.Next(12) switch
            {
                0 or 1 or 2 => $"{column} {Comparisons[random.Next(Comparisons.Length)]} {literal}",
                3 => $"{column} BETWEEN {literal} AND {Literal(random, parameters)}",
                4 => $"{column} IN ({literal}, {Literal(random, parameters)}, {Literal(random, parameters)})",
                5 => $"{column} IS NULL",
                6 => $"{column} IS NOT NULL",
                7 => $"{prefix}id = {Quote(Id(random, ids))}",
                8 => $"{prefix}id IN ({Quote(Id(random, ids))}, {Quote(Id(random, ids))}, 'k/none')",
                9 => $"{prefix}id >= {Quote(Id(random, ids))} AND {prefix}id < {Quote(Id(random, ids))}",
                10 => $"{prefix}id BETWEEN 'k/1' AND 'k/3'",
                _ => $"{column} = {literal}",
            });
        }

        var joiner = random.Next(3) == 0 ? " OR " : " AND ";
        return string.Join(joiner, parts.Select(p => "(" + p + ")"));
    }

    /// <summary>A literal for a comparison, or (one time in three) a parameter bound to the same value.</summary>
    private static string Literal(Random random, List<(string Name, object? Value)> parameters)
    {
        var literal = Literals[random.Next(Literals.Length)];
        if (random.Next(3) != 0)
        {
            return literal;
        }

        var name = "$p" + parameters.Count.ToString(CultureInfo.InvariantCulture);
        parameters.Add((name, ValueOf(literal)));
        return name;
    }

    /// <summary>The value a literal of <see cref="Literals"/> stands for, as a .NET value Microsoft.Data.Sqlite binds as the same SQLite type.</summary>
    private static object? ValueOf(string literal) => literal switch
    {
        "NULL" => null,
        "char(97, 0, 98)" => "a\0b",
        ['\'', .., '\''] => literal[1..^1].Replace("''", "'", StringComparison.Ordinal),
        _ when literal.AsSpan().IndexOfAny(".eE") >= 0 => double.Parse(literal, NumberStyles.Float, CultureInfo.InvariantCulture),
        _ => long.Parse(literal, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture),
    };

    private static string Id(Random random, List<string> ids) => random.Next(10) == 0 ? "k/" + random.Next(500) : ids[random.Next(ids.Count)];

    private static string Quote(string text) => "'" + text.Replace("'", "''", StringComparison.Ordinal) + "'";

    /// <summary>
    /// Runs <paramref name="format"/> on the voron_docs side and on the plain side, and asserts
    /// the same rows; <paramref name="loose"/> for DISTINCT and GROUP BY, which may keep any one
    /// of several values SQLite deems equal (INTEGER 0, REAL 0.0 and -0.0), whichever they meet first.
    /// </summary>
    private static void Compare(SqliteConnection connection, string format, bool ordered, string where, bool loose = false, List<(string Name, object? Value)>? parameters = null)
    {
        (string, object?)[] bound = [.. parameters ?? []];
        var expected = connection.Query(Fill(format, "pv", "pv"), bound);
        var sides = format.Contains("{1}", StringComparison.Ordinal) ? new[] { ("d", "d"), ("d", "pv"), ("pv", "d") } : [("d", "d")];
        foreach (var (left, right) in sides)
        {
            var sql = Fill(format, left, right);
            List<object?[]> actual;
            try
            {
                actual = connection.Query(sql, bound);
            }
            catch (SqliteException e)
            {
                throw new Xunit.Sdk.XunitException($"{where}: {sql} failed: {e.Message} ({VoronSqlite()})");
            }

            AssertSame(expected, actual, ordered, $"{where}: {sql}", loose);
        }
    }

    private static string Fill(string format, string left, string right) =>
        format.Replace("{0}", left, StringComparison.Ordinal).Replace("{1}", right, StringComparison.Ordinal);

    private static string VoronSqlite() => Voron.SqliteVfs.VoronSqlite.LastError?.ToString() ?? "no VFS error";

    private static void AssertSame(List<object?[]> expected, List<object?[]> actual, bool ordered, string where, bool loose = false)
    {
        Func<object?[], string> show = loose ? Loose : DocsSql.Show;
        var e = expected.Select(show).ToList();
        var a = actual.Select(show).ToList();
        if (!ordered)
        {
            e.Sort(StringComparer.Ordinal);
            a.Sort(StringComparer.Ordinal);
        }

        if (e.SequenceEqual(a, StringComparer.Ordinal))
        {
            return;
        }

        var first = Enumerable.Range(0, Math.Max(e.Count, a.Count)).First(i => i >= e.Count || i >= a.Count || e[i] != a[i]);
        var message = new StringBuilder($"{where}\n  expected {e.Count} rows, got {a.Count}; first difference at row {first}:\n");
        message.Append("  expected ").AppendLine(first < e.Count ? e[first] : "(no row)");
        message.Append("  actual   ").AppendLine(first < a.Count ? a[first] : "(no row)");
        throw new Xunit.Sdk.XunitException(message.ToString());
    }

    /// <summary>A row as text with numbers compared by value (integral reals as integers).</summary>
    private static string Loose(object?[] row) => "(" + string.Join(", ", row.Select(NumberValue)) + ")";

    private static string NumberValue(object? value) => value switch
    {
        double d when d == Math.Floor(d) && Math.Abs(d) < 9.2e18 => ((long)d).ToString(CultureInfo.InvariantCulture) + ":num",
        long l => l.ToString(CultureInfo.InvariantCulture) + ":num",
        _ => DocsSql.Show(value),
    };
}
