using System.Text.Json;
using JasperFx;
using Marten;
using MartenStore = Marten.DocumentStore;
using VoronStore = Voron.Documents.DocumentStore;

namespace Voron.PostgreSql.Tests;

/// <summary>
/// voron export --to postgresql://...: a store of 100,000 documents and two SQLite databases,
/// read back through psql, Marten and the .sqlite files; the errors a person meets.
/// </summary>
public sealed class ExportCommandTests
{
    private const int Users = 90_000;
    private const int Orders = 10_000;

    [PostgresFact]
    public async Task A_store_of_100000_documents_and_two_SQL_databases_goes_over_and_reads_back_through_psql_and_Marten()
    {
        var server = TestPostgres.Require();
        var database = await server.CreateDatabaseAsync();
        using var directory = new TempDirectory();
        var store = directory.Combine("store");
        using (var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(store)))
        {
            await using (var documents = VoronStore.Open(environment))
            {
                await ExportStores.AddDocumentsAsync(documents, Users, Orders);
            }

            ExportStores.AddSqlDatabases(environment, rows: 2_000);
        }

        var sqlite = directory.Combine("sqlite");
        var run = await ToolRun.RunAsync("export", store, "--to", server.Uri(database), "--sqlite-dir", sqlite);
        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Contains("User -> \"public\".\"mt_doc_user\": 90,000 rows, counts checked", run.Error, StringComparison.Ordinal);
        Assert.Contains("Order -> \"public\".\"mt_doc_order\": 10,000 rows, counts checked", run.Error, StringComparison.Ordinal);
        Assert.Contains("User -> \"public\".\"mt_doc_user\": 90,000 of 90,000 documents (100%)", run.Error, StringComparison.Ordinal); // progress

        // psql: counts, no duplicate ids, and documents compared with what was stored.
        Assert.Equal("90000|90000", server.RunPsql(database, "SELECT count(*), count(DISTINCT id) FROM mt_doc_user"));
        Assert.Equal("10000", server.RunPsql(database, "SELECT count(*) FROM mt_doc_order"));
        Assert.Equal("0", server.RunPsql(database, "SELECT count(*) FROM mt_doc_user WHERE mt_last_modified IS NULL OR data->>'Id' <> id"));
        foreach (var i in new[] { 0, 1, 2, 4_999, 45_678, 89_999 })
        {
            var data = server.RunPsql(database, $"SELECT data::text FROM mt_doc_user WHERE id = 'users/{i:D6}'");
            AssertSameJson(ExportStores.UserJson(i), data, $"users/{i:D6}");
        }

        Assert.Equal("users/000042|1042", server.RunPsql(database, "SELECT data->>'Customer', data->'Total' FROM mt_doc_order WHERE id = 'orders/001042'"));
        Assert.Equal("2|2", server.RunPsql(database, "SELECT count(*), count(*) FILTER (WHERE finished) FROM voron_export_progress"));

        // Marten: typed loads and a LINQ query over the 90,000.
        using (var marten = MartenStore.For(o =>
               {
                   o.Connection(server.ConnectionString(database));
                   o.AutoCreateSchemaObjects = AutoCreate.None;
               }))
        {
            await using var query = marten.QuerySession();
            var user = await query.LoadAsync<User>("users/045678");
            Assert.Equal("User 45678 ünïcödé", user!.Name);
            Assert.Equal(Enumerable.Range(0, Users).Count(i => i % 90 == 89 && i % 7 == 0), await query.Query<User>().Where(u => u.Age == 89 && u.City == "City 0").CountAsync());
        }

        // The two SQL databases, as plain SQLite files.
        Assert.Equal(2_000, ExportStores.CountRows(Path.Combine(sqlite, "shop.sqlite"), "invoices"));
        Assert.Equal(1_000, ExportStores.CountRows(Path.Combine(sqlite, "audit.sqlite"), "events"));
        Assert.Contains($"pgloader sqlite://{Path.Combine(sqlite, "shop.sqlite")} '{server.Uri(database)}'", run.Error, StringComparison.Ordinal);

        // Run again: nothing to write, the counts are checked again.
        var again = await ToolRun.RunAsync("export", store, "--to", server.Uri(database), "--sqlite-dir", sqlite);
        Assert.True(again.ExitCode == 0, again.ToString());
        Assert.Contains("User -> \"public\".\"mt_doc_user\": 90,000 rows, counts checked (0 written now, 90,000 already there from an earlier run", again.Error, StringComparison.Ordinal);
        Assert.Equal("90000", server.RunPsql(database, "SELECT count(*) FROM mt_doc_user"));
    }

    [Fact]
    public async Task A_server_that_is_down_is_named_with_what_to_check()
    {
        using var directory = new TempDirectory();
        var store = await SmallStoreAsync(directory);
        var port = UnusedPort();
        var run = await ToolRun.RunAsync("export", store, "--to", $"postgresql://postgres:secret@127.0.0.1:{port}/shop");
        Assert.True(run.ExitCode == 3, run.ToString());
        Assert.Contains($"Cannot reach PostgreSQL at 127.0.0.1:{port}/shop", run.Error, StringComparison.Ordinal);
        Assert.Contains("Is the server running", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("secret", run.Error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("postgresql://host:port/db", "not a valid PostgreSQL URI")]
    [InlineData("postgresql://127.0.0.1/db?sslmod=require", "the parameter 'sslmod', which the export does not know")]
    [InlineData("Hots=127.0.0.1;Database=db", "cannot be read")]
    [InlineData("mysql://127.0.0.1/db", "must start with postgresql://")]
    [InlineData("  ", "is empty")]
    public async Task A_connection_string_that_cannot_be_read_is_a_usage_error_saying_what_is_wrong(string to, string expected)
    {
        using var directory = new TempDirectory();
        var store = await SmallStoreAsync(directory);
        var run = await ToolRun.RunAsync("export", store, "--to", to);
        Assert.True(run.ExitCode == 2, run.ToString());
        Assert.Contains(expected, run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Output_and_to_together_are_a_usage_error()
    {
        using var directory = new TempDirectory();
        var store = await SmallStoreAsync(directory);
        var run = await ToolRun.RunAsync("export", store, "--to", "postgresql://127.0.0.1/db", "--output", directory.Combine("x.jsonl"));
        Assert.True(run.ExitCode == 2, run.ToString());
        Assert.Contains("--output and --to cannot go together", run.Error, StringComparison.Ordinal);
    }

    [PostgresFact]
    public async Task A_table_with_another_layout_is_refused_naming_the_difference_and_left_as_it_was()
    {
        var server = TestPostgres.Require();
        var database = await server.CreateDatabaseAsync();
        server.RunPsql(database, "CREATE TABLE mt_doc_user (id integer PRIMARY KEY, data text NOT NULL, extra text NOT NULL); INSERT INTO mt_doc_user VALUES (1, 'x', 'y')");
        using var directory = new TempDirectory();
        var store = await SmallStoreAsync(directory);

        var run = await ToolRun.RunAsync("export", store, "--to", server.Uri(database));
        Assert.True(run.ExitCode == 3, run.ToString());
        Assert.Contains("The table \"public\".\"mt_doc_user\" exists with another layout than Marten's", run.Error, StringComparison.Ordinal);
        Assert.Contains("its column id is integer, not character varying", run.Error, StringComparison.Ordinal);
        Assert.Contains("its column data is text, not jsonb", run.Error, StringComparison.Ordinal);
        Assert.Contains("it has no column mt_version (uuid)", run.Error, StringComparison.Ordinal);
        Assert.Contains("it has a column extra (text, NOT NULL, no default)", run.Error, StringComparison.Ordinal);
        Assert.Contains("--schema", run.Error, StringComparison.Ordinal);
        Assert.Equal("1", server.RunPsql(database, "SELECT count(*) FROM mt_doc_user"));

        // Into another schema it goes.
        var other = await ToolRun.RunAsync("export", store, "--to", server.Uri(database), "--schema", "voron");
        Assert.True(other.ExitCode == 0, other.ToString());
        Assert.Equal("3", server.RunPsql(database, "SELECT count(*) FROM voron.mt_doc_user"));
    }

    [PostgresFact]
    public async Task A_table_of_Marten_layout_holding_rows_the_export_did_not_write_is_refused()
    {
        var server = TestPostgres.Require();
        var database = await server.CreateDatabaseAsync();
        server.RunPsql(database, Export.MartenTable.CreateSql("public", "mt_doc_user") + "; INSERT INTO mt_doc_user (id, data) VALUES ('someone/else', '{}')");
        using var directory = new TempDirectory();
        var store = await SmallStoreAsync(directory);

        var run = await ToolRun.RunAsync("export", store, "--to", server.Uri(database));
        Assert.True(run.ExitCode == 3, run.ToString());
        Assert.Contains("already holds 1 rows that this export did not write", run.Error, StringComparison.Ordinal);
        Assert.Equal("1", server.RunPsql(database, "SELECT count(*) FROM mt_doc_user"));

        // Emptied, it is taken.
        server.RunPsql(database, "DELETE FROM mt_doc_user");
        var again = await ToolRun.RunAsync("export", store, "--to", server.Uri(database));
        Assert.True(again.ExitCode == 0, again.ToString());
        Assert.Equal("3", server.RunPsql(database, "SELECT count(*) FROM mt_doc_user"));
    }

    [PostgresFact]
    public async Task A_database_that_does_not_exist_is_named_with_what_to_do()
    {
        var server = TestPostgres.Require();
        using var directory = new TempDirectory();
        var store = await SmallStoreAsync(directory);
        var run = await ToolRun.RunAsync("export", store, "--to", server.Uri("no_such_database"));
        Assert.True(run.ExitCode == 3, run.ToString());
        Assert.Contains("database \"no_such_database\" does not exist", run.Error, StringComparison.Ordinal);
        Assert.Contains("createdb", run.Error, StringComparison.Ordinal);
    }

    internal static async Task<string> SmallStoreAsync(TempDirectory directory)
    {
        var store = directory.Combine("small");
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(store));
        await using var documents = VoronStore.Open(environment);
        await ExportStores.AddDocumentsAsync(documents, users: 3, orders: 0);
        return store;
    }

    internal static int UnusedPort()
    {
        using var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        return ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
    }

    private static void AssertSameJson(string expectedWithoutId, string actual, string id)
    {
        using var expected = JsonDocument.Parse(expectedWithoutId);
        using var got = JsonDocument.Parse(actual);
        var want = expected.RootElement.EnumerateObject().Where(p => p.Name != "Id").ToDictionary(p => p.Name, p => p.Value.GetRawText());
        var have = got.RootElement.EnumerateObject().ToDictionary(p => p.Name, p => p.Value.GetRawText());
        Assert.Equal($"\"{id}\"", have["Id"]);
        have.Remove("Id");
        Assert.Equal(want.Keys.Order(), have.Keys.Order());
        foreach (var (name, value) in want)
        {
            // jsonb normalizes whitespace and number text (1.0 stays 1.0; key order is jsonb's)
            using var a = JsonDocument.Parse(value);
            using var b = JsonDocument.Parse(have[name]);
            Assert.True(JsonElement.DeepEquals(a.RootElement, b.RootElement), $"{id}.{name}: stored {value}, PostgreSQL has {have[name]}");
        }
    }
}
