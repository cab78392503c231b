namespace Voron.Tests.Sql;

/// <summary>
/// The isolation and commit rules of Voron.SqliteVfs/Databases/DatabaseState.cs (V2–V10), with
/// the store's journal flush held back on purpose (GatedFileSystem) so that a commit is
/// submitted but not durable for as long as a test needs.
/// </summary>
public sealed class VfsIsolationTests
{
    private static readonly TimeSpan Blocked = TimeSpan.FromMilliseconds(300);

    private static SqlStore NewStore(GatedFileSystem gate)
    {
        var store = new SqlStore(gate);
        using var connection = store.Open("db");
        connection.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
        connection.Execute("INSERT INTO t(v) VALUES ('first')");
        return store;
    }

    // A thread each (LongRunning): these block inside SQLite while a flush is held, and blocked
    // pool threads on a 2-core machine would make the tests wait for the pool to grow.
    private static Task<long> CountAsync(SqlStore store) => Task.Factory.StartNew(() =>
    {
        using var connection = store.Open("db");
        return connection.Scalar<long>("SELECT count(*) FROM t");
    }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);

    private static Task InsertAsync(SqlStore store, string value) => Task.Factory.StartNew(() =>
    {
        using var connection = store.Open("db");
        connection.Execute("INSERT INTO t(v) VALUES ($v)", ("$v", value));
    }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);

    [Fact]
    public void A_readers_snapshot_is_stable_while_writers_commit()
    {
        using var store = new SqlStore();
        using var writer = store.Open("db");
        writer.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
        writer.Execute("INSERT INTO t(v) VALUES ('a')");

        using var reader = store.Open("db");
        using var transaction = reader.BeginTransaction(deferred: true);
        using var count = reader.CreateCommand();
        count.Transaction = transaction;
        count.CommandText = "SELECT count(*), group_concat(v) FROM t";
        Assert.Equal("1 a", Read(count));

        for (var i = 0; i < 20; i++)
        {
            writer.Execute("INSERT INTO t(v) VALUES ($v)", ("$v", "w" + i));
        }

        writer.Execute("UPDATE t SET v = 'changed' WHERE id = 1");
        Assert.Equal("1 a", Read(count)); // V2: the snapshot taken at SHARED does not move
        transaction.Commit();

        Assert.Equal(21, reader.Scalar<long>("SELECT count(*) FROM t"));

        static string Read(SqliteCommand command)
        {
            using var rows = command.ExecuteReader();
            rows.Read();
            return $"{rows.GetInt64(0)} {rows.GetString(1)}";
        }
    }

    /// <summary>Whether <paramref name="task"/> is still running after <see cref="Blocked"/>.</summary>
    private static async Task<bool> StillBlocked(Task task) => await Task.WhenAny(task, Task.Delay(Blocked)) != task;

    [Fact]
    public async Task Commit_returns_only_once_durable_and_a_read_only_transaction_never_sees_it_before()
    {
        var gate = new GatedFileSystem();
        using var store = NewStore(gate);

        gate.Close();
        var insert = InsertAsync(store, "second");
        gate.WaitForWaiting(1); // the commit is submitted: its journal record waits for its flush
        Assert.True(await StillBlocked(insert), "COMMIT returned before its journal flush (V7)");

        // V2, V3: a reader reads the newest durable state at once, without the commit in flight
        // (rows a crash could still take back), and without waiting for its flush.
        Assert.Equal(1, await CountAsync(store));

        gate.Open();
        await insert;
        Assert.Equal(2, await CountAsync(store));
    }

    [Fact]
    public async Task Writers_build_on_a_commit_that_is_not_yet_durable_and_share_its_flush()
    {
        var gate = new GatedFileSystem();
        using var store = NewStore(gate);
        var writesBefore = store.Environment.JournalWrites;

        gate.Close();
        var first = InsertAsync(store, "w0");
        gate.WaitForWaiting(1);

        // V4/V7: later writers take the write lock, read the in-flight state and submit on top of
        // it while the first flush is held; none of their COMMITs returns yet.
        var later = Enumerable.Range(1, 7).Select(i => InsertAsync(store, "w" + i)).ToArray();
        var state = store.Registration.Databases.Get("db");
        Assert.True(SpinWait.SpinUntil(() => state.InFlightCount == 8, TimeSpan.FromSeconds(60)), $"8 commits in flight (saw {state.InFlightCount})");
        Assert.True(await StillBlocked(Task.WhenAny([first, .. later])), "a COMMIT returned before its flush");

        gate.Open();
        await Task.WhenAll([first, .. later]);
        using var connection = store.Open("db");
        Assert.Equal(9, connection.Scalar<long>("SELECT count(*) FROM t"));
        Assert.Equal("ok", connection.IntegrityCheck());

        // The seven later commits were merged into fewer journal records than commits.
        var writes = store.Environment.JournalWrites - writesBefore;
        Assert.True(writes < 8, $"8 commits took {writes} journal writes");
    }

    [Fact]
    public async Task A_commit_built_on_one_that_fails_fails_too_and_readers_neither_see_nor_fail_on_either()
    {
        var gate = new GatedFileSystem();
        var store = NewStore(gate);
        try
        {
            gate.Close();
            var first = InsertAsync(store, "lost-1");
            gate.WaitForWaiting(1);
            var second = InsertAsync(store, "lost-2");
            var state = store.Registration.Databases.Get("db");
            SpinWait.SpinUntil(() => state.InFlightCount == 2, TimeSpan.FromSeconds(30));
            using var reader = store.Open("db");
            reader.Execute("BEGIN");
            Assert.Equal(1, reader.Scalar<long>("SELECT count(*) FROM t")); // V3: durable rows only, no wait

            gate.Fail();
            foreach (var task in new Task[] { first, second })
            {
                var error = await Assert.ThrowsAsync<SqliteException>(() => task);
                Assert.Equal(10, error.SqliteErrorCode); // SQLITE_IOERR: the store failed
            }

            // V3: a reader never fails because another connection's commit did.
            Assert.Equal(1, reader.Scalar<long>("SELECT count(*) FROM t"));
            reader.Execute("COMMIT");

            // Fail-stop: the store acknowledges nothing more, and still serves what is durable.
            Assert.True(store.Environment.Failure != null, "DEBUG: env not failed; journal failure " + store.Environment.Journal.Failure);
            using (var connection = store.Open("db"))
            {
                Assert.Equal(1, connection.Scalar<long>("SELECT count(*) FROM t"));
                var refused = Assert.Throws<SqliteException>(() => connection.Execute("INSERT INTO t(v) VALUES ('x')"));
                Assert.Equal(10, refused.SqliteErrorCode);
            }

            // A failed flush may still have reached the disk (the in-memory disk keeps it): the
            // failed COMMIT's outcome is unknown, as with any database, but never partial, and
            // the commit built on it was never written.
            gate.Open();
            store.Reopen();
            using (var connection = store.Open("db"))
            {
                Assert.InRange(connection.Scalar<long>("SELECT count(*) FROM t"), 1, 2);
                Assert.Equal(0, connection.Scalar<long>("SELECT count(*) FROM t WHERE v = 'lost-2'"));
                connection.Execute("INSERT INTO t(v) VALUES ('after')");
                Assert.Equal(1, connection.Scalar<long>("SELECT count(*) FROM t WHERE v = 'after'"));
                Assert.Equal("ok", connection.IntegrityCheck());
            }
        }
        finally
        {
            gate.Open();
            store.Dispose();
        }
    }

    [Fact]
    public void A_deferred_transaction_that_read_a_state_another_commit_changed_cannot_write()
    {
        using var store = new SqlStore();
        using var writer = store.Open("db");
        writer.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
        writer.Execute("INSERT INTO t(v) VALUES ('a')");

        using var stale = store.Open("db");
        stale.DefaultTimeout = 1; // Microsoft.Data.Sqlite retries any SQLITE_BUSY, this one too, for the command timeout (30 s by default)
        using var transaction = stale.BeginTransaction(deferred: true);
        using (var read = stale.CreateCommand())
        {
            read.Transaction = transaction;
            read.CommandText = "SELECT count(*) FROM t";
            Assert.Equal(1L, read.ExecuteScalar());
        }

        writer.Execute("INSERT INTO t(v) VALUES ('b')");

        // V6: as in WAL mode, the transaction read a state that is no longer the newest.
        using var write = stale.CreateCommand();
        write.Transaction = transaction;
        write.CommandText = "INSERT INTO t(v) VALUES ('c')";
        var error = Assert.Throws<SqliteException>(() => write.ExecuteNonQuery());

        // SQLITE_BUSY_SNAPSHOT (517), not the lock's plain SQLITE_BUSY: retry logic keyed on the
        // extended code tells "run the transaction again" from "wait for the lock". What broke:
        // the code was plain SQLITE_BUSY. (Microsoft.Data.Sqlite retries both until the command
        // timeout, as it does on a stock database in WAL mode: the primary code is 5 either way.)
        Assert.Equal((5, 517), (error.SqliteErrorCode, error.SqliteExtendedErrorCode));
        Assert.Contains("BEGIN IMMEDIATE", Assert.IsType<InvalidOperationException>(VoronSqlite.LastError).Message, StringComparison.Ordinal); // the message says why, and what to do
        transaction.Rollback();

        // The ticket V6 gave it is gone: another writer is not held up.
        writer.Execute("INSERT INTO t(v) VALUES ('d')");
        Assert.Equal(3, writer.Scalar<long>("SELECT count(*) FROM t"));
    }

    [Fact]
    public void Busy_timeout_bounds_the_wait_for_the_write_lock()
    {
        using var store = new SqlStore();
        using var holder = store.Open("db");
        holder.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY)");
        using var held = holder.BeginTransaction(); // BEGIN IMMEDIATE: the write lock (V1)
        holder.Execute("INSERT INTO t DEFAULT VALUES");

        using var waiter = store.Open("db", pooling: false);
        waiter.Execute("PRAGMA busy_timeout = 50");
        waiter.DefaultTimeout = 1;
        var error = Assert.Throws<SqliteException>(() => waiter.BeginTransaction());
        Assert.Equal((5, 5), (error.SqliteErrorCode, error.SqliteExtendedErrorCode)); // SQLITE_BUSY, "database is locked"

        held.Commit();
        using var next = waiter.BeginTransaction();
        waiter.Execute("INSERT INTO t DEFAULT VALUES");
        next.Commit();
        Assert.Equal(2, waiter.Scalar<long>("SELECT count(*) FROM t"));
    }
}
