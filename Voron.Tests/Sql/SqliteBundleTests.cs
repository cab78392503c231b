namespace Voron.Tests.Sql;

/// <summary>
/// Microsoft.Data.Sqlite 10 runs here on SQLitePCLRaw 3.0.3 (the 2.1 line it asks for is not in
/// our registry copy, docs/dependencies.md): these tests prove that pairing loads the native
/// library and runs SQL, which Voron.SqliteVfs and the load tests rely on.
/// </summary>
public sealed class SqliteBundleTests
{
    [Fact]
    public void Native_sqlite_loads_and_runs_a_transaction()
    {
        using var connection = new SqliteConnection("Data Source=:memory:");
        connection.Open();
        using (var create = connection.CreateCommand())
        {
            create.CommandText = "CREATE TABLE kv (k INTEGER PRIMARY KEY, v BLOB); INSERT INTO kv VALUES (1, x'0102');";
            create.ExecuteNonQuery();
        }

        using var query = connection.CreateCommand();
        query.CommandText = "SELECT v FROM kv WHERE k = 1";
        Assert.Equal(new byte[] { 1, 2 }, (byte[])query.ExecuteScalar()!);
    }

    [Fact]
    public void Native_sqlite_version_is_3_40_or_newer()
    {
        using var connection = new SqliteConnection("Data Source=:memory:");
        connection.Open();

        Assert.True(new Version(connection.ServerVersion) >= new Version(3, 40), connection.ServerVersion);
    }
}
