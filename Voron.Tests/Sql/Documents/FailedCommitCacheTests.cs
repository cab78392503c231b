namespace Voron.Tests.Sql.Documents;

/// <summary>
/// V17: a COMMIT that fails after SQLite has finished its side of it (at COMMIT_PHASETWO, where a
/// document conflict is reported as SQLITE_CONSTRAINT, not as an I/O error) leaves SQLite's page
/// cache holding the pages of the commit that failed. The connection must never read them, nor
/// write them back as part of its next commit. Found as 1 run in 15 of
/// VoronDocsIsolationTests' increment race: a failed COMMIT's log row was later committed by
/// the same connection without its document change.
/// </summary>
public sealed class FailedCommitCacheTests
{
    private const string CreateOrders = "CREATE VIRTUAL TABLE orders USING voron_docs(orders, customer='$.customer' TEXT, email='$.email' TEXT)";

    /// <summary>
    /// The case that defeated SQLite's own check: the connection's transaction read first (its
    /// cache then matched the database at change counter h), another connection committed
    /// (h + 1) before it wrote, and the VFS moved the writer forward (V5) without SQLite
    /// re-reading page 1. SQLite then wrote counter h + 1 into its page 1 while the version it
    /// submitted became h + 2. When that version failed, the database was back at h + 1: the
    /// bytes SQLite compares at its next read transaction matched its cache, and it kept the pages
    /// of the failed commit.
    /// </summary>
    [Fact]
    public async Task A_commit_that_fails_after_the_writer_moved_forward_leaves_nothing_in_the_connection_that_made_it()
    {
        using var store = new DocsStore();
        await store.Documents.EnsureIndexAsync(new IndexDefinition("orders", "OrdersByEmail", "email").AsUnique());
        using var writer = store.Open();
        using var other = store.Open();
        // Set up through the other connection, so the writer's cache never held b's page.
        other.Execute("CREATE TABLE a(x TEXT)");
        other.Execute("CREATE TABLE filler(x TEXT)"); // keeps a's and b's pages in different store blocks (V5 compares blocks)
        other.Execute("CREATE TABLE b(x TEXT)");
        other.Execute("INSERT INTO a VALUES ('a')");
        other.Execute("INSERT INTO b VALUES ('b0')");
        other.Execute(CreateOrders);
        var advancedBefore = store.Sql.Registration.Databases.Get("db").StaleWriters.Advanced;

        // A deferred transaction that reads a plain table first, so SQLite checks its cache now...
        writer.Execute("BEGIN");
        Assert.Equal(1L, writer.Value("SELECT count(*) FROM a"));

        // ...another connection commits a change to a page the writer never read...
        other.Execute("UPDATE b SET x = 'b1'");

        // ...and the writer writes: the VFS moves its snapshot forward instead of restarting it (V5).
        writer.Execute("INSERT INTO a VALUES ('lost')");
        writer.Execute("INSERT INTO orders(id, customer, email) VALUES ('orders/1', 'eve', 'eve@example.com')");
        Assert.Equal(advancedBefore + 1, store.Sql.Registration.Databases.Get("db").StaleWriters.Advanced);

        // A session takes the unique value before the COMMIT: the merged operation refuses it.
        await store.StoreRawAsync("orders", "orders/2", """{"customer":"mallory","email":"eve@example.com"}""");
        var error = Assert.Throws<SqliteException>(() => writer.Execute("COMMIT"));
        Assert.Equal(19, error.SqliteErrorCode); // SQLITE_CONSTRAINT: a conflict to retry, not a disk error (V14)
        Assert.IsType<UniqueConstraintException>(Voron.SqliteVfs.VoronSqlite.LastError);
        writer.RollbackIfOpen();

        // Nothing of the failed commit, through the connection that made it or any other...
        Assert.Equal(["a"], writer.Query("SELECT x FROM a ORDER BY x").Select(r => (string)r[0]!));
        Assert.Equal(["a"], other.Query("SELECT x FROM a ORDER BY x").Select(r => (string)r[0]!));
        Assert.Equal(0L, writer.Value("SELECT count(*) FROM orders WHERE id = 'orders/1'"));

        // ...and its next commit carries only its own change.
        writer.Execute("INSERT INTO a VALUES ('next')");
        using var fresh = store.Open();
        Assert.Equal(["a", "next"], fresh.Query("SELECT x FROM a ORDER BY x").Select(r => (string)r[0]!));
        Assert.Equal("b1", fresh.Value("SELECT x FROM b"));
        store.Documents.CheckIntegrity();
    }

    /// <summary>
    /// V17 with a read statement of the same connection open across the failed COMMIT: SQLite
    /// keeps its SHARED lock while a statement reads, so it never checks its cache again, and the
    /// failed commit's pages would stay visible to the connection's next statements (and be
    /// written again by its next commit). What broke: the COMMIT failed with SQLITE_CONSTRAINT,
    /// which leaves SQLite's cache as it is. Now, with another statement active, the COMMIT fails
    /// with SQLITE_IOERR, which makes SQLite distrust its cache: the connection's statements fail
    /// until the open one ends, and then read only what is committed.
    /// </summary>
    [Fact]
    public async Task A_commit_that_fails_while_a_statement_of_the_connection_reads_leaves_nothing_visible_to_it()
    {
        using var store = new DocsStore();
        await store.Documents.EnsureIndexAsync(new IndexDefinition("orders", "OrdersByEmail", "email").AsUnique());
        using var writer = store.Open();
        writer.Execute("CREATE TABLE a(x TEXT)");
        writer.Execute("INSERT INTO a VALUES ('a1'), ('a2'), ('a3')");
        writer.Execute(CreateOrders);

        writer.Execute("BEGIN IMMEDIATE");
        writer.Execute("INSERT INTO a VALUES ('lost')");
        writer.Execute("INSERT INTO orders(id, customer, email) VALUES ('orders/1', 'eve', 'eve@example.com')");
        using var reading = writer.CreateCommand();
        reading.CommandText = "SELECT x FROM a ORDER BY x";
        var reader = reading.ExecuteReader();
        Assert.True(reader.Read()); // a statement of this connection is reading, and stays open

        await store.StoreRawAsync("orders", "orders/2", """{"customer":"mallory","email":"eve@example.com"}""");
        var error = Assert.Throws<SqliteException>(() => writer.Execute("COMMIT"));
        Assert.Equal(10, error.SqliteErrorCode); // SQLITE_IOERR: SQLite must drop its cache
        var why = Voron.SqliteVfs.VoronSqlite.LastError!;
        Assert.Contains("another statement of this connection", why.Message, StringComparison.Ordinal);
        Assert.IsType<UniqueConstraintException>(why.InnerException);

        // While the statement is open, the connection reads nothing of the failed commit: its
        // statements fail (SQLite's pager stays in its error state until the open one ends).
        try
        {
            Assert.DoesNotContain("lost", writer.Query("SELECT x FROM a ORDER BY x").Select(r => (string)r[0]!));
        }
        catch (SqliteException refused)
        {
            Assert.Equal(10, refused.SqliteErrorCode);
        }

        reader.Dispose();
        writer.RollbackIfOpen();
        Assert.Equal(["a1", "a2", "a3"], writer.Query("SELECT x FROM a ORDER BY x").Select(r => (string)r[0]!));
        Assert.Equal(0L, writer.Value("SELECT count(*) FROM orders WHERE id = 'orders/1'"));
        writer.Execute("INSERT INTO a VALUES ('next')");
        using var fresh = store.Open();
        Assert.Equal(["a1", "a2", "a3", "next"], fresh.Query("SELECT x FROM a ORDER BY x").Select(r => (string)r[0]!));
        store.Documents.CheckIntegrity();
    }

    /// <summary>
    /// The class, against a model: three connections run random transactions on one thread (so a
    /// seed replays exactly): a deferred one that reads before it writes or one that begins
    /// IMMEDIATE, sometimes with another connection committing in between (V5 then moves the
    /// writer forward), each writing a row and a document whose unique value a session sometimes
    /// takes first (the COMMIT then fails at COMMIT_PHASETWO), sometimes with a statement of its own
    /// still reading across the COMMIT. After every transaction every
    /// connection reads exactly the rows of the commits that succeeded, and the documents agree.
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Every_connection_reads_exactly_the_commits_that_succeeded(int seed)
    {
        var random = new Random(seed);
        using var store = new DocsStore();
        await store.Documents.EnsureIndexAsync(new IndexDefinition("orders", "OrdersByEmail", "email").AsUnique());
        // One thread: the only SQLITE_BUSY here is V6's, which waiting never clears, and
        // Microsoft.Data.Sqlite retries it for the command timeout (30 s by default) before giving
        // it back. 5 s still covers any lock wait (a V6 ticket lapses after 1 s).
        var connections = Enumerable.Range(0, 3).Select(_ => store.Open()).ToArray();
        foreach (var connection in connections)
        {
            connection.DefaultTimeout = 5;
        }

        try
        {
            var setup = connections[0];
            setup.Execute("CREATE TABLE a(x TEXT)");
            setup.Execute("CREATE TABLE filler(x TEXT)");
            setup.Execute("CREATE TABLE b(x TEXT)");
            setup.Execute("INSERT INTO b VALUES ('b')");
            setup.Execute(CreateOrders);
            var rows = new SortedSet<string>(StringComparer.Ordinal);
            var orders = new SortedSet<string>(StringComparer.Ordinal);
            var failed = 0;
            var restarted = 0;
            for (var step = 0; step < 120; step++)
            {
                var writer = connections[random.Next(3)];
                var other = connections.First(c => c != writer);
                var token = $"r{step}";
                var deferred = random.Next(2) == 0;
                if (deferred)
                {
                    // Reads first: SQLite checks its cache against the state now...
                    writer.Execute("BEGIN");
                    Assert.Equal((long)rows.Count, writer.Value("SELECT count(*) FROM a"));
                    if (random.Next(2) == 0)
                    {
                        other.Execute("UPDATE b SET x = $x", ("$x", token)); // ...and another connection commits before it writes (V5)
                    }
                }
                else
                {
                    writer.Execute("BEGIN IMMEDIATE");
                }

                try
                {
                    writer.Execute("INSERT INTO a VALUES ($x)", ("$x", token));
                    writer.Execute("INSERT INTO orders(id, customer, email) VALUES ($id, 'c', $e)", ("$id", "orders/" + token), ("$e", token + "@example.com"));
                }
                catch (SqliteException e) when (deferred && e.SqliteErrorCode == 5)
                {
                    writer.RollbackIfOpen(); // V6: the other commit touched a page it holds; it starts over, as in WAL mode
                    restarted++;
                    continue;
                }

                var taken = random.Next(3) == 0;
                if (taken)
                {
                    await store.StoreRawAsync("orders", "taken/" + token, $$"""{"email":"{{token}}@example.com"}""");
                }

                // Sometimes a statement of the writer is still reading across the COMMIT: then a
                // failed COMMIT is SQLITE_IOERR, so SQLite drops its cache once the reader ends.
                SqliteDataReader? open = null;
                using var reading = writer.CreateCommand();
                if (random.Next(4) == 0)
                {
                    reading.CommandText = "SELECT x FROM b";
                    open = reading.ExecuteReader();
                    Assert.True(open.Read());
                }

                try
                {
                    writer.Execute("COMMIT");
                    Assert.False(taken, $"step {step}: the COMMIT succeeded although a session took its unique value first");
                    rows.Add(token);
                    orders.Add("orders/" + token);
                }
                catch (SqliteException e) when (taken && e.SqliteErrorCode == (open == null ? 19 : 10))
                {
                    open?.Dispose();
                    writer.RollbackIfOpen();
                    failed++;
                }

                open?.Dispose();

                foreach (var connection in connections)
                {
                    Assert.Equal(rows, connection.Query("SELECT x FROM a ORDER BY x").Select(r => (string)r[0]!));
                    Assert.Equal(orders, connection.Query("SELECT id FROM orders WHERE id LIKE 'orders/%' ORDER BY id").Select(r => (string)r[0]!));
                }
            }

            Assert.True(failed > 10, $"only {failed} COMMITs failed ({restarted} restarted): the test did not exercise V17");
            store.Documents.CheckIntegrity();
        }
        finally
        {
            foreach (var connection in connections)
            {
                connection.Dispose();
            }
        }
    }
}
