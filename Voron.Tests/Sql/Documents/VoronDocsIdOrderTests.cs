using Voron.Testing;

namespace Voron.Tests.Sql.Documents;

/// <summary>
/// Ids in SQLite's order (SD4): a TEXT column with BINARY collation orders by UTF-8 bytes, which
/// is code point order, and so do the store's keys. .NET's ordinal string order is UTF-16's, which
/// puts U+10000 and up (surrogate pairs) before U+E000–U+FFFF.
/// </summary>
public sealed class VoronDocsIdOrderTests(ITestOutputHelper output)
{
    private const string Create = "CREATE VIRTUAL TABLE t USING voron_docs(K, v='$.v')";

    // UTF-8 order: a < U+E000 < U+FFFD < U+10000 < U+1F600 (UTF-16 order puts the last two first).
    private static readonly string[] InUtf8Order = ["k/a", "k/\uE000", "k/\uFFFD", "k/\U00010000", "k/\U0001F600"];

    private static async Task<DocsStore> StoreWithAsync(params string[] ids)
    {
        var store = new DocsStore();
        foreach (var id in ids)
        {
            await store.StoreRawAsync("K", id, "{\"v\":1}");
        }

        return store;
    }

    private static List<object?> Ids(SqliteConnection connection, string sql) => [.. connection.Query(sql).Select(r => r[0])];

    /// <summary>The id IN plan sorted its list with .NET's ordinal (UTF-16) order: astral ids came before U+E000–U+FFFF, and LIMIT kept the wrong ones.</summary>
    [Fact]
    public async Task Id_in_with_order_by_id_returns_the_ids_in_utf8_byte_order()
    {
        using var store = await StoreWithAsync(InUtf8Order);
        using var connection = store.Open();
        connection.Execute(Create);
        var list = string.Join(", ", InUtf8Order.Reverse().Select(id => $"'{id}'"));
        Assert.Equal(InUtf8Order, Ids(connection, $"SELECT id FROM t WHERE id IN ({list}) ORDER BY id"));
        Assert.Equal(InUtf8Order.Reverse(), Ids(connection, $"SELECT id FROM t WHERE id IN ({list}) ORDER BY id DESC"));
        Assert.Equal(["k/a", "k/\uE000"], Ids(connection, $"SELECT id FROM t WHERE id IN ({list}) ORDER BY id LIMIT 2"));
    }

    /// <summary>
    /// In a transaction that wrote documents of the collection, ORDER BY id and id ranges merged the
    /// snapshot's ids with the transaction's in a SortedSet ordered by UTF-16: the rows came out in
    /// the wrong order, and with LIMIT the wrong rows came back.
    /// </summary>
    [Fact]
    public async Task Order_by_id_and_id_ranges_in_a_transaction_that_wrote_the_collection_follow_utf8_byte_order()
    {
        using var store = await StoreWithAsync("k/a", "k/\U00010000");
        using var connection = store.Open();
        connection.Execute(Create);
        connection.Execute("BEGIN IMMEDIATE");
        connection.Execute("INSERT INTO t(id, v) VALUES ('k/\uE000', 2), ('k/\U0001F600', 2), ('k/\uFFFD', 2)");
        Assert.Equal(InUtf8Order, Ids(connection, "SELECT id FROM t ORDER BY id"));
        Assert.Equal(InUtf8Order.Reverse(), Ids(connection, "SELECT id FROM t ORDER BY id DESC"));
        Assert.Equal(["k/\uE000"], Ids(connection, "SELECT id FROM t WHERE id > 'k/a' ORDER BY id LIMIT 1"));
        Assert.Equal(["k/\uE000", "k/\uFFFD"], Ids(connection, "SELECT id FROM t WHERE id > 'k/a' AND id < 'k/\U00010000' ORDER BY id"));
        connection.Execute("COMMIT");
        Assert.Equal(InUtf8Order, Ids(connection, "SELECT id FROM t ORDER BY id"));
    }

    /// <summary>INSERT OR IGNORE over an existing id returned SQLITE_OK from xUpdate, which SQLite counts as a change: changes() was 1 where stock SQLite says 0.</summary>
    [Fact]
    public async Task Insert_or_ignore_over_an_existing_id_reports_no_change()
    {
        using var store = await StoreWithAsync("k/1");
        using var connection = store.Open();
        connection.Execute(Create);
        Assert.Equal(0, connection.Execute("INSERT OR IGNORE INTO t(id, v) VALUES ('k/1', 5)"));
        Assert.Equal(0L, connection.Value("SELECT changes()"));
        Assert.Equal(1, connection.Execute("INSERT OR IGNORE INTO t(id, v) VALUES ('k/1', 5), ('k/2', 6)"));
        Assert.Equal(new object?[] { 1L, 6L }, connection.Query("SELECT v FROM t ORDER BY id").Select(r => r[0]));
        Assert.Equal("{\"v\":1}", (await store.LoadRawAsync("k/1"))!.Value.Json);
    }

    // Characters for random ids: ASCII, two- and three-byte UTF-8, the U+E000–U+FFFF block UTF-16 misorders, and astral ones.
    private static readonly string[] Alphabet = ["a", "b", "z", "/", "\u00e9", "\u07ff", "\u0800", "\ud7ff", "\uE000", "\uF8FF", "\uFB01", "\uFFFD", "\uFFEE", "\U00010000", "\U0001F600", "\U0010FFFD"];

    private static string RandomId(Random random)
    {
        var text = new StringBuilder("k/");
        for (var i = random.Next(1, 4); i > 0; i--)
        {
            text.Append(Alphabet[random.Next(Alphabet.Length)]);
        }

        return text.ToString();
    }

    /// <summary>
    /// Property: random ids over characters whose UTF-8 and UTF-16 orders differ, in a voron_docs
    /// table and a plain table (id TEXT PRIMARY KEY) of the same database. ORDER BY id in both
    /// directions, id ranges (every operator), id IN lists, each with LIMIT/OFFSET, give the same
    /// rows in the same order, in autocommit and inside transactions that inserted (plain, OR
    /// IGNORE, OR REPLACE), updated and deleted documents of the collection; every write reports
    /// the changes() the plain table reports.
    /// </summary>
    [Fact]
    public async Task Random_ids_sort_filter_and_conflict_as_in_a_plain_table()
    {
        var seed = TestSeed.Next(output, nameof(Random_ids_sort_filter_and_conflict_as_in_a_plain_table));
        var random = new Random(seed);
        using var store = new DocsStore();
        using var connection = store.Open();
        connection.Execute(Create);
        connection.Execute("CREATE TABLE p(id TEXT PRIMARY KEY, v)");
        for (var i = 0; i < 40; i++)
        {
            var id = RandomId(random);
            if (connection.Value("SELECT count(*) FROM p WHERE id = $id", ("$id", id)) is 1L)
            {
                continue;
            }

            if (random.Next(2) == 0)
            {
                await store.StoreRawAsync("K", id, $"{{\"v\":{i}}}");
            }
            else
            {
                connection.Execute("INSERT INTO t(id, v) VALUES ($id, $v)", ("$id", id), ("$v", (long)i));
            }

            connection.Execute("INSERT INTO p(id, v) VALUES ($id, $v)", ("$id", id), ("$v", (long)i));
        }

        var queries = 0;
        for (var round = 0; round < 12; round++)
        {
            var inTransaction = round % 3 != 0;
            if (inTransaction)
            {
                connection.Execute("BEGIN IMMEDIATE");
                for (var w = 0; w < 6; w++)
                {
                    Write(connection, random, $"seed {seed}, round {round}, write {w}");
                }
            }

            for (var q = 0; q < 40; q++, queries++)
            {
                var (sql, parameters) = Query(random);
                var where = $"seed {seed}, round {round}{(inTransaction ? " (in a transaction that wrote)" : "")}, query {q}: {sql} with {string.Join(", ", parameters.Select(p => $"{p.Name} = {DocsSql.Show(p.Value)}"))}";
                var expected = connection.Query(string.Format(CultureInfo.InvariantCulture, sql, "p"), [.. parameters]).Select(DocsSql.Show).ToList();
                List<string> actual;
                try
                {
                    actual = connection.Query(string.Format(CultureInfo.InvariantCulture, sql, "t"), [.. parameters]).Select(DocsSql.Show).ToList();
                }
                catch (SqliteException e)
                {
                    throw new Xunit.Sdk.XunitException($"{where}: failed: {e.Message}");
                }

                Assert.True(expected.SequenceEqual(actual), $"{where}\n  expected {string.Join(" ", expected)}\n  actual   {string.Join(" ", actual)}");
            }

            if (inTransaction)
            {
                connection.Execute(random.Next(3) == 0 ? "ROLLBACK" : "COMMIT");
            }
        }

        var all = connection.Query("SELECT id, v FROM p ORDER BY id").Select(DocsSql.Show).ToList();
        Assert.Equal(all, connection.Query("SELECT id, v FROM t ORDER BY id").Select(DocsSql.Show).ToList());
        var sessions = await store.CollectionAsync("K");
        Assert.Equal(
            [.. connection.Query("SELECT id FROM p").Select(r => (string)r[0]!).Order(StringComparer.Ordinal)],
            sessions.Select(d => d.Id));
        output.WriteLine($"{queries} queries, {all.Count} documents at the end");
        store.Documents.CheckIntegrity();
    }

    /// <summary>One random write on both tables; the changes() of each must agree.</summary>
    private static void Write(SqliteConnection connection, Random random, string where)
    {
        var existing = connection.Query("SELECT id FROM p ORDER BY id").Select(r => (string)r[0]!).ToList();
        var id = random.Next(3) == 0 && existing.Count > 0 ? existing[random.Next(existing.Count)] : RandomId(random);
        var v = (long)random.Next(1000);
        var sql = random.Next(5) switch
        {
            0 => "INSERT OR IGNORE INTO {0}(id, v) VALUES ($id, $v)",
            1 => "INSERT OR REPLACE INTO {0}(id, v) VALUES ($id, $v)",
            2 => "UPDATE {0} SET v = $v WHERE id = $id",
            3 => "DELETE FROM {0} WHERE id = $id",
            _ => "INSERT INTO {0}(id, v) VALUES ($id, $v)",
        };
        int Run(string table)
        {
            try
            {
                return connection.Execute(string.Format(CultureInfo.InvariantCulture, sql, table), ("$id", id), ("$v", v));
            }
            catch (SqliteException e) when (e.SqliteErrorCode == 19)
            {
                return -1; // the constraint failed (a duplicate id)
            }
        }

        var plain = Run("p");
        var docs = Run("t");
        Assert.True(plain == docs, $"{where}: {sql} with id {id}: the plain table reports {plain} changes, voron_docs {docs} (-1: a constraint error)");
    }

    private static (string Sql, List<(string Name, object? Value)> Parameters) Query(Random random)
    {
        var parameters = new List<(string Name, object? Value)>();
        string Bound()
        {
            var name = "$b" + parameters.Count.ToString(CultureInfo.InvariantCulture);
            parameters.Add((name, random.Next(5) == 0 ? "k/" : RandomId(random)));
            return name;
        }

        string[] lower = [">", ">="];
        string[] upper = ["<", "<="];
        var where = random.Next(5) switch
        {
            0 => "",
            1 => $" WHERE id {lower[random.Next(2)]} {Bound()}",
            2 => $" WHERE id {upper[random.Next(2)]} {Bound()}",
            3 => $" WHERE id {lower[random.Next(2)]} {Bound()} AND id {upper[random.Next(2)]} {Bound()}",
            _ => $" WHERE id IN ({string.Join(", ", Enumerable.Range(0, random.Next(1, 6)).Select(_ => Bound()))})",
        };
        var order = random.Next(4) switch
        {
            0 => "",
            1 => " ORDER BY id DESC",
            _ => " ORDER BY id",
        };
        var limit = order.Length == 0 ? "" : random.Next(3) switch
        {
            0 => "",
            1 => $" LIMIT {random.Next(0, 6)}",
            _ => $" LIMIT {random.Next(1, 6)} OFFSET {random.Next(0, 8)}",
        };
        var sql = $"SELECT id, v FROM {{0}}{where}{order}{limit}";
        return order.Length == 0 ? ($"SELECT id, v FROM ({sql}) ORDER BY id", parameters) : (sql, parameters);
    }
}
