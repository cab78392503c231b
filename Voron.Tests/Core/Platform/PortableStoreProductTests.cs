using Voron.Tests.Documents;

namespace Voron.Tests.Core.Platform;

/// <summary>
/// The layers above Core on a store that runs on the portable file system, as they do on Windows
/// and macOS: documents and SQL on <c>Vfs=voron</c>, written, closed, reopened and read back.
/// </summary>
public sealed class PortableStoreProductTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    private StorageEnvironment OpenPortable(string name)
    {
        var options = StorageEnvironmentOptions.ForDirectory(_directory.Combine(name));
        options.UsePortableFileSystem = true;
        return StorageEnvironment.Open(options);
    }

    [Fact]
    public async Task Documents_saved_on_a_portable_store_load_after_reopen()
    {
        using (var environment = OpenPortable("docs"))
        {
            await using var store = DocumentStore.Open(environment);
            await using var session = store.OpenSession();
            session.Store(new User { Id = "User/ada", Name = "Ada", Age = 36 }, TestJson.Default.User);
            await session.SaveChangesAsync();
        }

        using (var environment = OpenPortable("docs"))
        {
            await using var store = DocumentStore.Open(environment);
            await using var session = store.OpenSession();
            var ada = await session.LoadAsync("User/ada", TestJson.Default.User);
            Assert.Equal(36, ada?.Age);
        }
    }

    [Fact]
    public void Sql_on_Vfs_voron_over_a_portable_store_commits_and_reads_back_after_reopen()
    {
        var vfs = "voron-portable-" + Guid.NewGuid().ToString("N")[..8];
        for (var round = 0; round < 2; round++)
        {
            using var environment = OpenPortable("sql");
            using var registration = VoronSqlite.Register(environment, vfs);
            using var connection = new SqliteConnection($"Data Source=orders;Vfs={vfs}");
            connection.Open();
            using var command = connection.CreateCommand();
            command.CommandText = round == 0
                ? "CREATE TABLE orders(id INTEGER PRIMARY KEY, total REAL); WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 2000) INSERT INTO orders(total) SELECT x * 1.5 FROM s;"
                : "SELECT count(*), sum(total) FROM orders;";
            if (round == 0)
            {
                command.ExecuteNonQuery();
                continue;
            }

            using var reader = command.ExecuteReader();
            Assert.True(reader.Read());
            Assert.Equal(2000, reader.GetInt64(0));
            Assert.Equal(1.5 * 2000 * 2001 / 2, reader.GetDouble(1));
        }
    }

    public void Dispose() => _directory.Dispose();
}
