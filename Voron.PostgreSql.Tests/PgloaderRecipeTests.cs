using System.Diagnostics;
using Voron.Documents;

namespace Voron.PostgreSql.Tests;

/// <summary>
/// docs/postgresql.md's recipe for the store's SQL databases: voron export writes each as a
/// .sqlite file, and pgloader (Debian's 3.6.9) loads it, with the cast the recipe gives so that
/// SQLite's REAL (8 bytes) stays double precision instead of PostgreSQL's 4-byte real.
/// </summary>
public sealed class PgloaderRecipeTests
{
    [PgloaderFact]
    public async Task The_pgloader_recipe_loads_both_SQL_databases_with_every_row_and_exact_reals()
    {
        var server = TestPostgres.Require();
        var pgloader = PgloaderFactAttribute.Pgloader ?? throw new Xunit.Sdk.XunitException("pgloader is not on PATH: apt-get install pgloader");
        var database = await server.CreateDatabaseAsync();
        using var directory = new TempDirectory();
        var store = directory.Combine("store");
        using (var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(store)))
        {
            await using (var documents = DocumentStore.Open(environment))
            {
                await ExportStores.AddDocumentsAsync(documents, users: 10, orders: 0);
            }

            ExportStores.AddSqlDatabases(environment, rows: 3_000);
        }

        var sqlite = directory.Combine("sqlite");
        var run = await ToolRun.RunAsync("export", store, "--to", server.Uri(database), "--sqlite-dir", sqlite);
        Assert.True(run.ExitCode == 0, run.ToString());

        foreach (var file in new[] { "shop.sqlite", "audit.sqlite" })
        {
            // The recipe, as docs/postgresql.md gives it.
            var (code, log) = Run(pgloader, "--cast", "type real to float8 using float-to-string", $"sqlite://{Path.Combine(sqlite, file)}", server.Uri(database));
            Assert.True(code == 0, $"pgloader {file} exited {code}:\n{log}");
            Assert.DoesNotContain(" ERROR ", log, StringComparison.Ordinal); // pgloader exits 0 even when a table failed
        }

        Assert.Equal("3000|3000|5626875", server.RunPsql(database, "SELECT count(*), count(DISTINCT id), sum(amount) FROM invoices"));
        Assert.Equal("double precision", server.RunPsql(database, "SELECT data_type FROM information_schema.columns WHERE table_name = 'invoices' AND column_name = 'amount'"));
        Assert.Equal("1500", server.RunPsql(database, "SELECT count(*) FROM events"));
        Assert.Equal("10", server.RunPsql(database, "SELECT count(*) FROM mt_doc_user"));
    }

    private static (int Code, string Log) Run(string program, params string[] arguments)
    {
        var info = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in arguments)
        {
            info.ArgumentList.Add(argument);
        }

        using var process = Process.Start(info)!;
        var error = process.StandardError.ReadToEndAsync();
        var output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        return (process.ExitCode, output + error.Result);
    }
}
