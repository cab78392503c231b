using Voron.Testing;

namespace Voron.Tests.Sql.Documents;

/// <summary>
/// SD7: a voron_docs table takes part in SQLite's transactions like a plain table. The same random
/// transactions — BEGIN, SAVEPOINT, RELEASE, ROLLBACK TO, COMMIT, ROLLBACK, statements that fail
/// part-way (a duplicate id or a body that is not a JSON object on a later row), INSERT OR
/// REPLACE / OR IGNORE, UPDATE, DELETE, and rows of a plain table in the same transaction — run on
/// a voron_docs table over <c>Vfs=voron</c> and on a plain table of a stock SQLite database whose
/// CHECK refuses what the module refuses. After every statement both succeeded or both failed and
/// both read the same rows; whenever no transaction is open, another connection and a document
/// session read the same committed documents. The seed is printed; VORON_SEED replays it.
/// </summary>
public sealed class VoronDocsTransactionModelTests(ITestOutputHelper output)
{
    private const string Collection = "T";

    private static readonly string[] Ids = ["a/1", "a/2", "a/3", "b/1", "b/2", "x/1"];
    private static readonly string[] Bodies = ["{}", "{\"n\":1}", "{\"n\":2,\"s\":\"\u00e9\"}", "{\"a\":[1,2]}"];
    private static readonly string[] Savepoints = ["s1", "s2", "s3"];

    [Fact]
    public async Task A_failed_statement_and_ROLLBACK_TO_undo_their_documents_as_SQLite_undoes_rows_DocsTable_SD7()
    {
        // What broke: SQLite opens a virtual table's savepoint when the table joins the
        // transaction, before its first xUpdate; the module kept no mark then (its change list did
        // not exist yet), so the statement's rollback and ROLLBACK TO undid nothing and the
        // transaction's first document writes committed. Fixed: the mark is kept from the start.
        using var store = new DocsStore();
        using var connection = store.Open();
        connection.Execute($"CREATE VIRTUAL TABLE t USING voron_docs({Collection}, a='$.a')");
        connection.Execute("CREATE TABLE plain(k INTEGER PRIMARY KEY, v)");
        connection.Execute("INSERT INTO t(id, body) VALUES ('x/1', '{}')");

        connection.Execute("BEGIN");
        Assert.Throws<SqliteException>(() => connection.Execute("INSERT INTO t(id, body) VALUES ('a/1','{}'), ('a/2','{}'), ('x/1','{}')"));
        connection.Execute("COMMIT");

        connection.Execute("BEGIN");
        connection.Execute("SAVEPOINT s1");
        connection.Execute("INSERT INTO t(id, body) VALUES ('f/1','{}')");
        connection.Execute("INSERT INTO plain VALUES (1,'f')");
        connection.Execute("ROLLBACK TO s1");
        connection.Execute("COMMIT");

        Assert.Equal(["x/1"], connection.Query("SELECT id FROM t ORDER BY id").Select(r => (string)r[0]!));
        Assert.Equal(0L, connection.Value("SELECT count(*) FROM plain"));
        Assert.Equal(["x/1"], (await store.CollectionAsync(Collection)).Select(d => d.Id));
    }

    [Fact]
    public async Task A_second_table_joining_a_savepoint_keeps_what_the_first_wrote_undoable_DocsTable_SD7()
    {
        // Two voron_docs tables of one database share the connection's changes; the second one's
        // savepoint call must not move the mark the first one's writes are undone to.
        using var store = new DocsStore();
        using var connection = store.Open();
        connection.Execute($"CREATE VIRTUAL TABLE t USING voron_docs({Collection})");
        connection.Execute($"CREATE VIRTUAL TABLE u USING voron_docs(U)");

        connection.Execute("BEGIN");
        connection.Execute("SAVEPOINT s1");
        connection.Execute("INSERT INTO t(id, body) VALUES ('t/1','{}')");
        connection.Execute("INSERT INTO u(id, body) VALUES ('u/1','{}')");
        connection.Execute("ROLLBACK TO s1");
        connection.Execute("COMMIT");

        Assert.Empty(await store.CollectionAsync(Collection));
        Assert.Empty(await store.CollectionAsync("U"));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ROLLBACK_TO_undoes_changes_of_one_document_made_through_two_tables_of_its_collection_DocsTable_SD7(bool secondJoinsFirst)
    {
        // Each table marks savepoints as SQLite tells it of them; the undo runs over one log, newest
        // first, so a document changed through both tables goes back to what it was.
        using var store = new DocsStore();
        using var connection = store.Open();
        connection.Execute($"CREATE VIRTUAL TABLE t USING voron_docs({Collection})");
        connection.Execute($"CREATE VIRTUAL TABLE t2 USING voron_docs({Collection})");
        connection.Execute("INSERT INTO t(id, body) VALUES ('x/1', '{\"n\":0}')");

        connection.Execute("BEGIN");
        if (secondJoinsFirst)
        {
            connection.Execute("UPDATE t2 SET body = '{\"n\":1}' WHERE id = 'x/1'");
        }

        connection.Execute("SAVEPOINT s");
        connection.Execute("UPDATE t SET body = '{\"n\":2}' WHERE id = 'x/1'");
        connection.Execute("UPDATE t2 SET body = '{\"n\":3}' WHERE id = 'x/1'");
        connection.Execute("UPDATE t SET body = '{\"n\":4}' WHERE id = 'x/1'");
        connection.Execute("ROLLBACK TO s");
        Assert.Equal(secondJoinsFirst ? "{\"n\":1}" : "{\"n\":0}", connection.Value("SELECT body FROM t WHERE id = 'x/1'"));
        connection.Execute("COMMIT");

        Assert.Equal(secondJoinsFirst ? "{\"n\":1}" : "{\"n\":0}", (await store.LoadRawAsync("x/1"))?.Json);
    }

    [Fact]
    public async Task A_document_deleted_and_inserted_again_in_one_transaction_commits_over_the_version_it_deleted_DocsTable_SD6()
    {
        // What broke: the INSERT expected no stored document (version 0), though the stored one
        // was still there until the transaction's own DELETE committed, so COMMIT failed with a
        // conflict nobody caused. Fixed: the new document expects the version the DELETE read.
        using var store = new DocsStore();
        using var connection = store.Open();
        connection.Execute($"CREATE VIRTUAL TABLE t USING voron_docs({Collection})");
        connection.Execute("INSERT INTO t(id, body) VALUES ('x/1', '{\"n\":1}')");

        connection.Execute("BEGIN");
        connection.Execute("DELETE FROM t WHERE id = 'x/1'");
        connection.Execute("INSERT INTO t(id, body) VALUES ('x/1', '{\"n\":2}')");
        connection.Execute("COMMIT");

        Assert.Equal("{\"n\":2}", (await store.LoadRawAsync("x/1"))?.Json);
    }

    [Fact]
    public async Task Random_transactions_with_savepoints_and_failing_statements_leave_what_a_plain_table_leaves()
    {
        var seed = TestSeed.Next(output, nameof(Random_transactions_with_savepoints_and_failing_statements_leave_what_a_plain_table_leaves));
        var random = new Random(seed);
        var steps = CrashBudget.Count(1_500, 0.001);

        using var store = new DocsStore();
        using var voron = store.Open();
        using var other = store.Open();
        voron.Execute($"CREATE VIRTUAL TABLE t USING voron_docs({Collection})");
        voron.Execute("CREATE VIRTUAL TABLE u USING voron_docs(U)");
        voron.Execute("CREATE TABLE plain(k INTEGER PRIMARY KEY, v)");

        using var stock = new SqliteConnection("Data Source=:memory:");
        stock.Open();
        stock.Execute("CREATE TABLE t(id TEXT PRIMARY KEY, body TEXT NOT NULL CHECK (json_valid(body) AND json_type(body) = 'object')) WITHOUT ROWID");
        stock.Execute("CREATE TABLE u(id TEXT PRIMARY KEY, body TEXT NOT NULL CHECK (json_valid(body) AND json_type(body) = 'object')) WITHOUT ROWID");
        stock.Execute("CREATE TABLE plain(k INTEGER PRIMARY KEY, v)");

        var log = new List<string>();
        for (var step = 0; step < steps; step++)
        {
            var sql = NextStatement(random);
            log.Add(sql);
            var voronError = Run(voron, sql);
            var stockError = Run(stock, sql);
            var where = $"seed {seed}, step {step}: {sql}\n  voron: {voronError ?? "ok"}\n  stock: {stockError ?? "ok"}\n  last statements:\n    {string.Join("\n    ", log.TakeLast(12))}";
            Assert.True((voronError == null) == (stockError == null), "one failed and the other did not; " + where);
            Assert.True(Rows(voron) == Rows(stock), $"the connections read different rows;\n  voron: {Rows(voron)}\n  stock: {Rows(stock)}\n  {where}");

            if (!InTransaction(stock))
            {
                // Committed state: what another connection and the document store read.
                Assert.True(Rows(other) == Rows(stock), $"another connection reads other committed rows;\n  other: {Rows(other)}\n  stock: {Rows(stock)}\n  {where}");
                var documents = string.Join(";", (await store.CollectionAsync(Collection)).Select(d => d.Id + "=" + d.Json)) + " / " +
                    string.Join(";", (await store.CollectionAsync("U")).Select(d => d.Id + "=" + d.Json));
                Assert.True(documents == Documents(stock), $"the document store holds other committed documents;\n  store: {documents}\n  stock: {Documents(stock)}\n  {where}");
            }
        }

        output.WriteLine($"{steps} statements, the same results and rows on both.");
    }

    private static string NextStatement(Random random)
    {
        // Two tables of one database share the connection's changes; ids are store-wide, so u's have a prefix of their own.
        var t = random.Next(3) == 0 ? "u" : "t";
        string Id() => (t == "u" ? "u" : "") + Ids[random.Next(Ids.Length)];
        string Body() => Bodies[random.Next(Bodies.Length)];
        string Row() => random.Next(8) == 0 ? $"('{Id()}', 'not json')" : $"('{Id()}', '{Body()}')";
        string Rows(int count) => string.Join(", ", Enumerable.Range(0, count).Select(_ => Row()));

        return random.Next(20) switch
        {
            0 => random.Next(2) == 0 ? "BEGIN" : "BEGIN IMMEDIATE",
            1 => "COMMIT",
            2 => "ROLLBACK",
            3 or 4 => "SAVEPOINT " + Savepoints[random.Next(Savepoints.Length)],
            5 => "RELEASE " + Savepoints[random.Next(Savepoints.Length)],
            6 or 7 => "ROLLBACK TO " + Savepoints[random.Next(Savepoints.Length)],
            8 or 9 or 10 => $"INSERT INTO {t}(id, body) VALUES {Rows(1 + random.Next(3))}",
            11 => $"INSERT OR REPLACE INTO {t}(id, body) VALUES {Rows(1 + random.Next(2))}",
            12 => $"INSERT OR IGNORE INTO {t}(id, body) VALUES {Rows(1 + random.Next(2))}",
            13 or 14 => $"UPDATE {t} SET body = '{Body()}' WHERE id = '{Id()}'",
            15 => $"UPDATE {t} SET body = CASE WHEN id = '{Id()}' THEN 'not json' ELSE '{Body()}' END WHERE id IN ('{Id()}', '{Id()}', '{Id()}')",
            16 => $"DELETE FROM {t} WHERE id = '{Id()}'",
            17 => $"DELETE FROM {t} WHERE id IN ('{Id()}', '{Id()}')",
            _ => $"INSERT OR REPLACE INTO plain VALUES ({random.Next(5)}, '{Id()}')",
        };
    }

    private static string? Run(SqliteConnection connection, string sql)
    {
        try
        {
            connection.Execute(sql);
            return null;
        }
        catch (SqliteException e)
        {
            return $"{e.SqliteErrorCode}/{e.SqliteExtendedErrorCode}: {e.Message}";
        }
    }

    private static bool InTransaction(SqliteConnection stock)
    {
        // A write inside a transaction of the mirror's own: BEGIN fails when one is open.
        try
        {
            stock.Execute("BEGIN");
            stock.Execute("ROLLBACK");
            return false;
        }
        catch (SqliteException)
        {
            return true;
        }
    }

    private static string Rows(SqliteConnection connection) =>
        Documents(connection) + " | " + string.Join(";", connection.Query("SELECT k, v FROM plain ORDER BY k").Select(r => r[0] + "=" + r[1]));

    private static string Documents(SqliteConnection connection) =>
        string.Join(";", connection.Query("SELECT id, body FROM t ORDER BY id").Select(r => r[0] + "=" + r[1])) + " / " +
        string.Join(";", connection.Query("SELECT id, body FROM u ORDER BY id").Select(r => r[0] + "=" + r[1]));
}
