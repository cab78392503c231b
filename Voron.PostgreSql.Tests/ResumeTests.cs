using Npgsql;
using Voron.Documents;
using Xunit.Abstractions;

namespace Voron.PostgreSql.Tests;

/// <summary>
/// An interrupted export resumes (PE1, PE2): after a cancellation, a lost connection or many
/// interruptions at random moments, running it again ends with exactly the store's documents,
/// none twice, and the progress row always names the rows the table holds.
/// </summary>
public sealed class ResumeTests(ITestOutputHelper output)
{
    [PostgresFact]
    public async Task An_export_cancelled_mid_way_resumes_with_exact_counts_and_no_duplicates()
    {
        var server = TestPostgres.Require();
        var database = await server.CreateDatabaseAsync();
        using var directory = new TempDirectory();
        var store = directory.Combine("store");
        using (var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(store)))
        await using (var documents = DocumentStore.Open(environment))
        {
            await ExportStores.AddDocumentsAsync(documents, users: 25_000, orders: 0);
            using var cancel = new CancellationTokenSource();
            var options = new PostgreSqlExportOptions
            {
                BatchSize = 1_000,
                Progress = new Forwarder(p =>
                {
                    if (p.Done >= 7_000)
                    {
                        cancel.Cancel();
                    }
                }),
            };
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => PostgreSqlExport.ExportAsync(documents, server.Uri(database), options, cancel.Token));
        }

        var (rows, recorded) = Counts(server, database);
        Assert.Equal(rows, recorded); // PE1
        Assert.Equal(7_000, rows);
        Assert.Equal("users/006999", server.RunPsql(database, "SELECT last_id FROM voron_export_progress"));

        var run = await ToolRun.RunAsync("export", store, "--to", server.Uri(database));
        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Contains("User -> \"public\".\"mt_doc_user\": 25,000 rows, counts checked (18,000 written now, 7,000 already there from an earlier run)", run.Error, StringComparison.Ordinal);
        Assert.Equal("25000|25000|25000", server.RunPsql(database, "SELECT count(*), count(DISTINCT id), (SELECT rows FROM voron_export_progress) FROM mt_doc_user"));
    }

    [PostgresFact]
    public async Task An_export_whose_connection_is_killed_fails_saying_to_run_it_again_and_the_next_run_completes_it()
    {
        var server = TestPostgres.Require();
        var database = await server.CreateDatabaseAsync();
        using var directory = new TempDirectory();
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory.Path));
        await using var documents = DocumentStore.Open(environment);
        await ExportStores.AddDocumentsAsync(documents, users: 12_000, orders: 3_000);

        var killed = false;
        var options = new PostgreSqlExportOptions
        {
            BatchSize = 500,
            Progress = new Forwarder(p =>
            {
                if (!killed && p.Collection == "User" && p.Done >= 4_000)
                {
                    killed = true;
                    using var admin = new NpgsqlConnection(server.ConnectionString(database));
                    admin.Open();
                    using var kill = new NpgsqlCommand(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()", admin);
                    kill.ExecuteNonQuery();
                }
            }),
        };
        var error = await Assert.ThrowsAsync<PostgreSqlExportException>(() => PostgreSqlExport.ExportAsync(documents, server.Uri(database), options));
        Assert.Contains("run the", error.Message, StringComparison.OrdinalIgnoreCase);
        Assert.Contains("again", error.Message, StringComparison.Ordinal);
        Assert.Equal("3000|3000", server.RunPsql(database, "SELECT count(*), (SELECT rows FROM voron_export_progress WHERE collection = 'Order') FROM mt_doc_order"));
        var (rows, recorded) = Counts(server, database);
        Assert.Equal(rows, recorded);

        var result = await PostgreSqlExport.ExportAsync(documents, server.Uri(database), new PostgreSqlExportOptions { BatchSize = 500 });
        var user = result.Collections.Single(c => c.Collection == "User");
        Assert.Equal((12_000L, rows), (user.Rows, user.Resumed));
        Assert.Equal(12_000 - rows, user.Written);
        Assert.Equal("12000", server.RunPsql(database, "SELECT count(DISTINCT id) FROM mt_doc_user"));
    }

    [PostgresFact]
    public async Task Many_interruptions_at_random_moments_end_in_exactly_the_stores_documents()
    {
        var seed = TestSeed.Next(output, nameof(Many_interruptions_at_random_moments_end_in_exactly_the_stores_documents));
        var random = new Random(seed);
        var server = TestPostgres.Require();
        var database = await server.CreateDatabaseAsync();
        using var directory = new TempDirectory();
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory.Path));
        await using var documents = DocumentStore.Open(environment);
        var users = random.Next(1_000, 6_000);
        var orders = random.Next(0, 2_000);
        await ExportStores.AddDocumentsAsync(documents, users, orders);

        // Ids whose UTF-8 order differs from .NET's UTF-16 ordinal order (an emoji against U+FF21):
        // the store's order, which PE2 relies on, is the UTF-8 one.
        string[] alphabet = ["a", "Z", "0", "/", "é", "中", "\uFF21", "\U0001F600"];
        var misc = new HashSet<string>(StringComparer.Ordinal);
        var miscCount = random.Next(0, 300);
        while (misc.Count < miscCount)
        {
            misc.Add(string.Concat(Enumerable.Range(0, random.Next(1, 6)).Select(_ => alphabet[random.Next(alphabet.Length)])));
        }

        await using (var session = documents.OpenSession())
        {
            foreach (var id in misc)
            {
                session.StoreRaw("Misc", id, "{\"v\":1}"u8);
            }

            await session.SaveChangesAsync();
        }

        var attempts = 0;
        while (true)
        {
            attempts++;
            Assert.True(attempts < 200, $"seed {seed}: no export completed in 200 attempts");
            using var cancel = new CancellationTokenSource();
            var reportsLeft = random.Next(0, 8);
            var options = new PostgreSqlExportOptions
            {
                BatchSize = random.Next(1, 700),
                Progress = new Forwarder(_ =>
                {
                    if (reportsLeft-- == 0)
                    {
                        cancel.Cancel(); // between batches
                    }
                }),
            };
            if (random.Next(3) == 0)
            {
                cancel.CancelAfter(random.Next(0, 40)); // anywhere, a COPY in flight included
            }

            try
            {
                var result = await PostgreSqlExport.ExportAsync(documents, server.Uri(database), options, attempts < 12 ? cancel.Token : CancellationToken.None);
                Assert.True(result.Rows == users + orders + misc.Count, $"seed {seed}: {result.Rows} rows, the store has {users + orders + misc.Count}");
                break;
            }
            catch (OperationCanceledException)
            {
                // interrupted: PE1 must hold for each table
                foreach (var table in new[] { "mt_doc_user", "mt_doc_order", "mt_doc_misc" })
                {
                    if (server.RunPsql(database, $"SELECT to_regclass('{table}') IS NOT NULL") != "t")
                    {
                        continue; // not begun
                    }

                    var parts = server.RunPsql(database, $"SELECT (SELECT count(*) FROM {table}), (SELECT rows FROM voron_export_progress WHERE table_name = '{table}')").Split('|');
                    Assert.True(parts[0] == parts[1], $"seed {seed}, attempt {attempts}: {table} holds {parts[0]} rows, the progress row says {parts[1]}");
                }
            }
        }

        output.WriteLine($"users {users}, orders {orders}, attempts {attempts}");
        Assert.Equal($"{users}|{users}", server.RunPsql(database, "SELECT count(*), count(DISTINCT id) FROM mt_doc_user"));
        if (orders > 0)
        {
            Assert.Equal($"{orders}|{orders}", server.RunPsql(database, "SELECT count(*), count(DISTINCT id) FROM mt_doc_order"));
        }

        Assert.Equal($"{misc.Count}", server.RunPsql(database, "SELECT count(DISTINCT id) FROM mt_doc_misc"));
        var sample = random.Next(users);
        Assert.Equal($"User {sample} ünïcödé", server.RunPsql(database, $"SELECT data->>'Name' FROM mt_doc_user WHERE id = 'users/{sample:D6}'"));
    }

    [PostgresFact]
    public async Task A_store_changed_below_the_resume_point_fails_the_count_check_naming_the_three_counts()
    {
        var server = TestPostgres.Require();
        var database = await server.CreateDatabaseAsync();
        using var directory = new TempDirectory();
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory.Path));
        await using var documents = DocumentStore.Open(environment);
        await ExportStores.AddDocumentsAsync(documents, users: 30, orders: 0);
        await PostgreSqlExport.ExportAsync(documents, server.Uri(database));

        await using (var session = documents.OpenSession())
        {
            session.Delete("users/000004");
            await session.SaveChangesAsync();
        }

        var changed = await Assert.ThrowsAsync<PostgreSqlExportException>(() => PostgreSqlExport.ExportAsync(documents, server.Uri(database)));
        Assert.Contains("PE4: the row counts of 'User' differ: \"public\".\"mt_doc_user\" holds 30 rows, the export recorded 30 written, and the store holds 29 documents", changed.Message, StringComparison.Ordinal);
        Assert.Contains("The store changed between", changed.Message, StringComparison.Ordinal);

        server.RunPsql(database, "DELETE FROM mt_doc_user WHERE id = 'users/000007'");
        var tampered = await Assert.ThrowsAsync<PostgreSqlExportException>(() => PostgreSqlExport.ExportAsync(documents, server.Uri(database)));
        Assert.Contains("holds 29 rows, the export recorded 30 written", tampered.Message, StringComparison.Ordinal);
        Assert.Contains("Someone else wrote to or deleted from the table", tampered.Message, StringComparison.Ordinal);
    }

    private static (long Rows, long Recorded) Counts(TestPostgres server, string database)
    {
        var parts = server.RunPsql(database, "SELECT count(*), (SELECT rows FROM voron_export_progress WHERE collection = 'User') FROM mt_doc_user").Split('|');
        return (long.Parse(parts[0], System.Globalization.CultureInfo.InvariantCulture), long.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture));
    }

    private sealed class Forwarder(Action<PostgreSqlExportProgress> report) : IProgress<PostgreSqlExportProgress>
    {
        public void Report(PostgreSqlExportProgress value) => report(value);
    }
}
