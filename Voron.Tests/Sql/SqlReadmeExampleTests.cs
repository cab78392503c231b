using Dapper;

namespace Voron.Tests.Sql;

/// <summary>
/// What the SQL quick start (README.md, with docs/sql.md) and the page-file fragment (docs/core.md,
/// "Page files") promise, checked on an in-memory store. The SQL quick start itself is compiled and
/// run from README.md's own text by Readme/ReadmeCodeBlockTests; the page-file block is a marked
/// fragment, so this hand-made copy is what keeps its calls working.
/// </summary>
public sealed class SqlReadmeExampleTests
{
    [Fact]
    public void Sql_quick_start_from_the_readme_runs_as_written()
    {
        using var store = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        var name = "voron-readme-" + Guid.NewGuid().ToString("N")[..8]; // the README says "voron"; tests run in parallel
        using var sql = VoronSqlite.Register(store, name);

        using var connection = new SqliteConnection($"Data Source=orders;Vfs={name}");
        connection.Open();
        connection.Execute("CREATE TABLE IF NOT EXISTS orders(id INTEGER PRIMARY KEY, customer TEXT, total REAL)");
        connection.Execute("INSERT INTO orders(customer, total) VALUES (@Customer, @Total)", new { Customer = "Ada", Total = 12.5 });
        var large = connection.Query<(long Id, string Customer)>("SELECT id, customer FROM orders WHERE total > @Min", new { Min = 10 });

        Assert.Equal([(1L, "Ada")], large);
        using var second = sql.OpenConnection("orders");
        Assert.Equal("memory", second.ExecuteScalar<string>("PRAGMA journal_mode"));
        Assert.Equal(1, second.ExecuteScalar<long>("SELECT count(*) FROM orders"));
    }

    [Fact]
    public void Page_file_example_from_the_readme_runs_as_written()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using (var tx = env.BeginWrite())
        {
            tx.CreatePageFile("blob").Write(offset: 8192, "hello"u8);
            tx.Commit();
        }

        using (var read = env.BeginRead())
        {
            var buffer = new byte[5];
            Assert.Equal(5, read.OpenPageFile("blob")!.Read(8192, buffer));
            Assert.Equal("hello"u8.ToArray(), buffer);
            Assert.Equal(8197, read.OpenPageFile("blob")!.Length);
        }
    }
}
