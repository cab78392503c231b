namespace Voron.Tests.Sql.Replica;

/// <summary>
/// A seeded random run of SQL writes on the primary (inserts with values that overflow pages,
/// updates, deletes, indexes created and dropped, rolled-back transactions, VACUUM, a second
/// database created midway). After each round the replica waits for the primary's transaction id,
/// and its answers to a fixed set of queries — through connections left open since the start and
/// through new ones — equal the primary's at that id (V18).
/// </summary>
public sealed class ReplicaSqlModelTests(ITestOutputHelper output)
{
    private const int Rounds = 40;

    private static readonly string[] Queries =
    [
        "SELECT id, k, v FROM t ORDER BY id",
        "SELECT k, count(*), sum(length(v)) FROM t GROUP BY k ORDER BY k",
        "SELECT id FROM t WHERE k = 3 ORDER BY id",
        "SELECT type, name, sql FROM sqlite_schema ORDER BY name",
        "PRAGMA page_count",
    ];

    [Fact]
    public async Task Replica_query_results_equal_the_primary_at_every_transaction_it_waited_for()
    {
        var seed = TestSeed.Next(output, nameof(Replica_query_results_equal_the_primary_at_every_transaction_it_waited_for));
        var random = new Random(seed);
        using var sql = new ReplicatedSql();
        sql.OnPrimary("a", "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT)");

        await sql.StartReplicaAsync();
        var writers = new Dictionary<string, SqliteConnection> { ["a"] = sql.OpenPrimary("a") };
        var readers = new Dictionary<string, SqliteConnection> { ["a"] = sql.OpenReplica("a") }; // left open: their page caches must follow
        try
        {
            for (var round = 0; round < Rounds; round++)
            {
                if (round == Rounds / 3)
                {
                    writers["b"] = sql.OpenPrimary("b");
                    writers["b"].Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT)");
                }

                var done = new List<string>();
                for (var n = random.Next(1, 4); n > 0; n--)
                {
                    var (database, writer) = writers.ElementAt(random.Next(writers.Count));
                    done.Add(database + ": " + Write(writer, random));
                }

                var token = await sql.CatchUpAsync();
                foreach (var (database, writer) in writers)
                {
                    if (!readers.TryGetValue(database, out var reader))
                    {
                        reader = readers[database] = sql.OpenReplica(database);
                    }

                    using var fresh = sql.OpenReplica(database, round % 2 == 0 ? SqliteOpenMode.ReadOnly : SqliteOpenMode.ReadWriteCreate);
                    foreach (var query in Queries)
                    {
                        var expected = writer.Rows(query);
                        var context = $"seed {seed}, round {round} (transaction {token}; {string.Join("; ", done)}), database {database}: {query}";
                        Assert.True(Same(expected, reader.Rows(query)), $"{context}: a connection left open differs from the primary");
                        Assert.True(Same(expected, fresh.Rows(query)), $"{context}: a new connection differs from the primary");
                    }
                }
            }

            foreach (var reader in readers.Values)
            {
                Assert.Equal("ok", reader.IntegrityCheck());
            }
        }
        finally
        {
            foreach (var connection in writers.Values.Concat(readers.Values))
            {
                connection.Dispose();
            }
        }
    }

    /// <summary>One random write (or a transaction of several, or one rolled back); returns what it did.</summary>
    private static string Write(SqliteConnection connection, Random random)
    {
        switch (random.Next(10))
        {
            case 0 or 1 or 2:
                var rows = random.Next(1, 20);
                connection.Execute("BEGIN");
                for (var i = 0; i < rows; i++)
                {
                    // Now and then a value larger than a page: overflow pages.
                    var length = random.Next(8) == 0 ? random.Next(9_000, 30_000) : random.Next(1, 300);
                    connection.Execute("INSERT INTO t(k, v) VALUES ($k, $v)", ("$k", random.Next(8)), ("$v", new string((char)('a' + random.Next(26)), length)));
                }

                connection.Execute("COMMIT");
                return $"insert {rows}";
            case 3 or 4:
                var k = random.Next(8);
                connection.Execute("UPDATE t SET v = v || $s, k = (k + 1) % 8 WHERE k = $k", ("$s", new string('u', random.Next(1, 50))), ("$k", k));
                return $"update k={k}";
            case 5:
                var m = random.Next(2, 6);
                connection.Execute("DELETE FROM t WHERE id % $m = 0", ("$m", m));
                return $"delete id%{m}";
            case 6:
                var exists = connection.Scalar<long>("SELECT count(*) FROM sqlite_schema WHERE name = 't_k'") > 0;
                connection.Execute(exists ? "DROP INDEX t_k" : "CREATE INDEX t_k ON t(k)");
                return exists ? "drop index" : "create index";
            case 7:
                connection.Execute("BEGIN");
                connection.Execute("DELETE FROM t");
                connection.Execute("ROLLBACK");
                return "rolled back";
            case 8:
                connection.Execute("VACUUM"); // pages renumbered: every cached page moves
                return "vacuum";
            default:
                connection.Execute("UPDATE t SET v = substr(v, 1, 10) WHERE length(v) > 5000"); // overflow pages freed
                return "shorten";
        }
    }

    private static bool Same(List<object?[]> expected, List<object?[]> actual) =>
        expected.Count == actual.Count && expected.Zip(actual).All(pair => pair.First.SequenceEqual(pair.Second));
}
