namespace Voron.Tests.Sql;

public sealed class VoronVfsTests
{
    [Fact]
    public void Tables_written_through_the_vfs_survive_a_crash_and_reopen()
    {
        using var store = new SqlStore();
        using (var connection = store.Open("orders"))
        {
            connection.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, blob BLOB)");
            connection.Execute("CREATE INDEX t_name ON t(name)");
            for (var i = 0; i < 200; i++)
            {
                connection.Execute("INSERT INTO t(name, blob) VALUES ($n, $b)", ("$n", "name " + i), ("$b", new byte[i * 10]));
            }

            Assert.Equal(200, connection.Scalar<long>("SELECT count(*) FROM t"));
            Assert.Equal(8192, connection.Scalar<long>("PRAGMA page_size"));
        }

        store.Reopen();
        using (var connection = store.Open("orders"))
        {
            Assert.Equal(200, connection.Scalar<long>("SELECT count(*) FROM t"));
            Assert.Equal("name 199", connection.Scalar<string>("SELECT name FROM t WHERE id = 200"));
            Assert.Equal("ok", connection.IntegrityCheck());
        }

        store.Environment.CheckIntegrity();
    }
}
