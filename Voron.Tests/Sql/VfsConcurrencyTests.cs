namespace Voron.Tests.Sql;

/// <summary>Many connections and databases writing at once: every commit lands once, nothing else does.</summary>
public sealed class VfsConcurrencyTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(1, 16, 40)]
    [InlineData(4, 16, 25)]
    public void Concurrent_single_row_commits_on_several_databases_all_land(int databases, int connections, int perConnection)
    {
        using var store = new SqlStore();
        for (var d = 0; d < databases; d++)
        {
            using var setup = store.Open("db" + d);
            setup.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, conn INTEGER, seq INTEGER, payload TEXT)");
            setup.Execute("CREATE INDEX t_conn ON t(conn, seq)");
        }

        var writesBefore = store.Environment.JournalWrites;
        var threads = Enumerable.Range(0, connections).Select(c => new Thread(() =>
        {
            using var connection = store.Open("db" + (c % databases));
            for (var i = 0; i < perConnection; i++)
            {
                if (i % 3 == 0)
                {
                    using var transaction = connection.BeginTransaction(); // BEGIN IMMEDIATE, as Microsoft.Data.Sqlite does
                    using var insert = connection.CreateCommand();
                    insert.Transaction = transaction;
                    insert.CommandText = "INSERT INTO t(conn, seq, payload) VALUES ($c, $i, $p)";
                    insert.Parameters.AddWithValue("$c", c);
                    insert.Parameters.AddWithValue("$i", i);
                    insert.Parameters.AddWithValue("$p", new string('x', 100 + i));
                    insert.ExecuteNonQuery();
                    transaction.Commit();
                }
                else
                {
                    connection.Execute("INSERT INTO t(conn, seq, payload) VALUES ($c, $i, $p)", ("$c", c), ("$i", i), ("$p", new string('y', 50 + c)));
                }

                if (i % 7 == 0)
                {
                    connection.Execute("UPDATE t SET payload = payload || '!' WHERE conn = $c AND seq = 0", ("$c", c));
                }
            }
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());

        var commits = connections * perConnection + connections * ((perConnection + 6) / 7);
        var writes = store.Environment.JournalWrites - writesBefore;
        for (var d = 0; d < databases; d++)
        {
            using var check = store.Open("db" + d);
            var perDatabase = Enumerable.Range(0, connections).Count(c => c % databases == d);
            Assert.Equal(perDatabase * perConnection, check.Scalar<long>("SELECT count(*) FROM t"));
            Assert.Equal(0, check.Scalar<long>("SELECT count(*) FROM (SELECT conn, seq FROM t GROUP BY conn, seq HAVING count(*) > 1)"));
            Assert.Equal("ok", check.IntegrityCheck());
            var (advanced, reruns) = store.Registration.Databases.Get("db" + d).StaleWriters;
            output.WriteLine($"db{d}: stale writers moved forward {advanced}, statements run again {reruns}");
        }

        output.WriteLine($"{commits} commits in {writes} journal writes");
        store.Environment.CheckIntegrity();
    }

    [Fact]
    public void Pooled_connections_see_each_others_commits_and_the_pool_is_cleared_on_dispose()
    {
        using var store = new SqlStore();
        for (var i = 0; i < 50; i++)
        {
            using var connection = store.Open("db");
            connection.Execute("CREATE TABLE IF NOT EXISTS t(x)");
            connection.Execute("INSERT INTO t VALUES ($x)", ("$x", i));
            Assert.Equal(i + 1, connection.Scalar<long>("SELECT count(*) FROM t"));
        }

        store.Registration.Dispose();
        using var after = new SqliteConnection(store.ConnectionString("db"));
        Assert.Contains("no such vfs", Assert.Throws<SqliteException>(after.Open).Message, StringComparison.Ordinal);
    }
}
