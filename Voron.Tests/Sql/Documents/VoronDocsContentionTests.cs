using System.Text.Json;

namespace Voron.Tests.Sql.Documents;

/// <summary>
/// One hot document written through both front doors at once, with readers beside them (V2–V4,
/// V15): a SQL connection increments it (autocommit, and in transactions that also change a plain
/// table), a document session increments it and retries on conflicts, a connection that only
/// reads reads it and the plain table, and a write transaction reads its version and
/// last_modified twice. What broke: a reader's snapshot held the writers' commits in flight, and
/// waiting for one that then lost a conflict threw that commit's error into the reader
/// (SQLITE_ERROR or SQLITE_CONSTRAINT on a SELECT); and a writer read version and last_modified
/// as NULL for a document whose newest state was a commit in flight. Fixed: a reader reads the
/// newest durable state and never waits; a writer's read of the stamps of an in-flight state waits
/// until that commit is durable.
/// </summary>
public sealed class VoronDocsContentionTests(ITestOutputHelper output)
{
    private const int Increments = 150;

    [Fact]
    public async Task Readers_never_fail_and_writers_read_stable_versions_while_both_doors_fight_over_one_document()
    {
        using var store = new DocsStore();
        using (var setup = store.Open())
        {
            setup.Execute("CREATE VIRTUAL TABLE c USING voron_docs(Counter, n='$.n' INTEGER)");
            setup.Execute("CREATE TABLE plain(k INTEGER PRIMARY KEY, n INTEGER)");
            setup.Execute("INSERT INTO plain VALUES (1, 0)");
            setup.Execute("INSERT INTO c(id, body) VALUES ('c/1', '{\"n\":0}')");
        }

        var failures = new List<string>();
        void Fail(string what)
        {
            lock (failures)
            {
                failures.Add(what);
            }
        }

        using var stop = new CancellationTokenSource();
        var sqlWins = 0;
        var sqlConflicts = 0;
        var plainWins = 0;
        var sql = OnThread(() =>
        {
            using var connection = store.Open();
            connection.Execute("PRAGMA busy_timeout = 60000");
            for (var i = 0; i < Increments; i++)
            {
                try
                {
                    if (i % 2 == 0)
                    {
                        connection.Execute("UPDATE c SET n = n + 1 WHERE id = 'c/1'");
                    }
                    else
                    {
                        connection.Execute("BEGIN IMMEDIATE");
                        connection.Execute("UPDATE c SET n = n + 1 WHERE id = 'c/1'");
                        connection.Execute("UPDATE plain SET n = n + 1 WHERE k = 1");
                        connection.Execute("COMMIT");
                        plainWins++;
                    }

                    sqlWins++;
                }
                catch (SqliteException e) when (e.SqliteErrorCode == 19)
                {
                    sqlConflicts++; // a session saved c/1 in between: nothing of the transaction is kept
                    connection.RollbackIfOpen();
                }
            }
        });

        var sessionWins = 0;
        var session = Task.Run(async () =>
        {
            for (var i = 0; i < Increments; i++)
            {
                while (true)
                {
                    try
                    {
                        var current = await store.LoadRawAsync("c/1");
                        var n = JsonDocument.Parse(current!.Value.Json).RootElement.GetProperty("n").GetInt64();
                        await store.StoreRawAsync("Counter", "c/1", $"{{\"n\":{n + 1}}}", current.Value.Version);
                        sessionWins++;
                        break;
                    }
                    catch (ConcurrencyException)
                    {
                    }
                }
            }
        });

        var reads = 0;
        var reader = OnThread(() =>
        {
            using var connection = store.Open();
            while (!stop.IsCancellationRequested)
            {
                try
                {
                    var n = (long)connection.Value("SELECT n FROM c WHERE id = 'c/1'")!;
                    var plain = (long)connection.Value("SELECT n FROM plain WHERE k = 1")!;
                    connection.Execute("BEGIN");
                    var again = (long)connection.Value("SELECT n FROM c WHERE id = 'c/1'")!;
                    var version = connection.Value("SELECT version FROM c WHERE id = 'c/1'");
                    connection.Execute("COMMIT");
                    if (n < 0 || plain < 0 || again < 0 || version == null)
                    {
                        Fail($"reader: n {n}, plain {plain}, again {again}, version {DocsSql.Show(version)}");
                    }

                    reads++;
                }
                catch (SqliteException e)
                {
                    Fail($"reader failed (a reader must never fail because of another connection's write): {e.SqliteErrorCode}/{e.SqliteExtendedErrorCode} {e.Message}");
                    connection.RollbackIfOpen();
                }
            }
        });

        var stamps = 0;
        var stamper = OnThread(() =>
        {
            using var connection = store.Open();
            connection.Execute("PRAGMA busy_timeout = 60000");
            while (!stop.IsCancellationRequested)
            {
                try
                {
                    connection.Execute("BEGIN IMMEDIATE");
                    var first = connection.Query("SELECT version, last_modified FROM c WHERE id = 'c/1'").Single();
                    var second = connection.Query("SELECT version, last_modified FROM c WHERE id = 'c/1'").Single();
                    var matched = first[0] == null ? -1 : connection.Execute("UPDATE c SET body = body WHERE id = 'c/1' AND version = $v", ("$v", first[0]));
                    connection.Execute("ROLLBACK");
                    if (first[0] == null || first[1] == null || !Equals(first[0], second[0]) || !Equals(first[1], second[1]) || matched != 1)
                    {
                        Fail($"writer read {DocsSql.Show(first)} then {DocsSql.Show(second)}; the If-Match matched {matched} rows");
                    }

                    stamps++;
                }
                catch (SqliteException e) when (e.SqliteErrorCode == 19)
                {
                    connection.RollbackIfOpen(); // built on a commit that lost a conflict: it says so, and the transaction is retried
                }
                catch (SqliteException e)
                {
                    Fail($"writer failed: {e.SqliteErrorCode}/{e.SqliteExtendedErrorCode} {e.Message}");
                    connection.RollbackIfOpen();
                }
            }
        });

        try
        {
            await Task.WhenAll(sql, session);
        }
        finally
        {
            stop.Cancel();
            await Task.WhenAll(reader, stamper);
        }

        output.WriteLine($"SQL increments {sqlWins} (conflicts {sqlConflicts}), session increments {sessionWins}, reads {reads}, stamp reads {stamps}");
        Assert.True(failures.Count == 0, string.Join("\n", failures.Take(10)));
        using var check = store.Open();
        Assert.Equal((long)(sqlWins + sessionWins), check.Value("SELECT n FROM c WHERE id = 'c/1'"));
        Assert.Equal((long)plainWins, check.Value("SELECT n FROM plain WHERE k = 1")); // the row committed only with its document
    }

    // A thread each (LongRunning): these block inside SQLite.
    private static Task OnThread(Action work) =>
        Task.Factory.StartNew(work, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
}
