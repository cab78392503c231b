using Dapper;
using Voron.SqliteVfs.Databases;
using Voron.Tests.Sql.Documents;

namespace Voron.Tests.Sql.Replica;

/// <summary>
/// SQL on a read replica (V18 in Voron.SqliteVfs/Databases/DatabaseState.cs; docs/sql.md, "On a
/// read replica"): Microsoft.Data.Sqlite connections and Dapper read what the primary's SQL wrote,
/// a connection left open sees each applied transaction, every write is SQLITE_READONLY with the
/// reason in VoronSqlite.LastError and leaves nothing behind, and a missing database is
/// SQLITE_CANTOPEN, never created.
/// </summary>
public sealed class ReplicaSqlTests
{
    private const int SqliteReadOnly = 8;
    private const int SqliteCantOpen = 14;

    [Fact]
    public async Task Replica_reads_the_tables_and_indexes_of_every_database_the_primary_wrote_with_and_without_Mode_ReadOnly_and_through_Dapper()
    {
        using var sql = new ReplicatedSql();
        sql.OnPrimary("shop", "CREATE TABLE orders(id INTEGER PRIMARY KEY, customer TEXT NOT NULL, total REAL NOT NULL)", "CREATE INDEX orders_customer ON orders(customer)");

        await sql.StartReplicaAsync(); // the snapshot holds "shop" without rows; the rows and "audit" come through the journal
        using (var shop = sql.OpenPrimary("shop"))
        {
            for (var batch = 0; batch < 5; batch++)
            {
                shop.Execute("BEGIN");
                for (var i = 0; i < 100; i++)
                {
                    shop.Execute("INSERT INTO orders(customer, total) VALUES ($c, $t)", ("$c", $"c{i % 7}"), ("$t", (batch * 100) + i + 0.5));
                }

                shop.Execute("COMMIT");
            }

            shop.Execute("UPDATE orders SET total = total * 2 WHERE customer = 'c3'");
            shop.Execute("DELETE FROM orders WHERE id % 10 = 0");
        }

        sql.OnPrimary("audit", "CREATE TABLE events(at INTEGER, what TEXT)", "INSERT INTO events VALUES (1, 'opened'), (2, 'closed')");

        await sql.CatchUpAsync();
        var expectedOrders = sql.PrimaryRows("shop", "SELECT id, customer, total FROM orders ORDER BY id");

        Assert.Equal(450, expectedOrders.Count);
        foreach (var mode in new[] { SqliteOpenMode.ReadWriteCreate, SqliteOpenMode.ReadOnly })
        {
            using var shop = sql.OpenReplica("shop", mode);
            Assert.Equal(expectedOrders, shop.Rows("SELECT id, customer, total FROM orders ORDER BY id"));
            var plan = string.Join("\n", shop.Rows("EXPLAIN QUERY PLAN SELECT id FROM orders WHERE customer = 'c3'").Select(r => r[^1]));
            Assert.Contains("orders_customer", plan, StringComparison.Ordinal);
            Assert.Equal(expectedOrders.Where(r => (string)r[1]! == "c3").Select(r => r[0]), shop.Rows("SELECT id FROM orders WHERE customer = 'c3' ORDER BY id").Select(r => r[0]));
            Assert.Equal("ok", shop.IntegrityCheck());

            var dapper = shop.Query<(long Id, string Customer, double Total)>("SELECT id, customer, total FROM orders WHERE total > @Min ORDER BY id", new { Min = 300 }).ToList();
            Assert.Equal(expectedOrders.Where(r => (double)r[2]! > 300).Select(r => (long)r[0]!), dapper.Select(o => o.Id));

            using var audit = sql.OpenReplica("audit", mode);
            Assert.Equal(new[] { "opened", "closed" }, audit.Query<string>("SELECT what FROM events ORDER BY at"));
        }

        using var pooled = sql.ReplicaSql.OpenConnection("shop"); // the registration's helper: journal_mode=MEMORY needs no write
        Assert.Equal(450L, pooled.Scalar<long>("SELECT count(*) FROM orders"));
    }

    [Fact]
    public async Task A_connection_left_open_on_the_replica_sees_each_applied_transaction_at_its_next_transaction()
    {
        // SQLite keeps its page cache across transactions and drops it only when the header's
        // change counter moved: the counter the primary stamped (V7) comes with the applied pages.
        using var sql = new ReplicatedSql();
        sql.OnPrimary("db", "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)", "INSERT INTO t(v) VALUES ('a')");

        await sql.StartReplicaAsync();
        using var open = sql.OpenReplica("db");
        using var readOnly = sql.OpenReplica("db", SqliteOpenMode.ReadOnly);
        using var writer = sql.OpenPrimary("db");
        Assert.Equal(Table([1L, "a"]), open.Rows("SELECT id, v FROM t ORDER BY id"));

        string[] changes =
        [
            "INSERT INTO t(v) VALUES ('b')",
            "UPDATE t SET v = 'A' WHERE id = 1",                 // same page, same size: only the content and the counter move
            "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 40) INSERT INTO t(v) SELECT printf('%0500d', n) FROM s", // new pages
            "DELETE FROM t WHERE id > 10",                       // pages freed
            "CREATE INDEX t_v ON t(v)",                          // the schema moves
            "ALTER TABLE t ADD COLUMN w INTEGER DEFAULT 7",
            "UPDATE t SET w = id",
        ];
        foreach (var change in changes)
        {
            writer.Execute(change);
            var expected = writer.Rows("SELECT * FROM t ORDER BY id");
            await sql.CatchUpAsync();
            Assert.Equal(expected, open.Rows("SELECT * FROM t ORDER BY id"));
            Assert.Equal(expected, readOnly.Rows("SELECT * FROM t ORDER BY id"));
        }

        // A read transaction keeps its snapshot while the replica applies more, then sees the newest.
        open.Execute("BEGIN");
        var before = open.Rows("SELECT * FROM t ORDER BY id");
        writer.Execute("INSERT INTO t(v) VALUES ('later')");
        var after = writer.Rows("SELECT * FROM t ORDER BY id");
        await sql.CatchUpAsync();
        Assert.Equal(before, open.Rows("SELECT * FROM t ORDER BY id"));
        open.Execute("COMMIT");
        Assert.Equal(after, open.Rows("SELECT * FROM t ORDER BY id"));
        Assert.Equal("ok", open.IntegrityCheck());
    }

    [Fact]
    public async Task Every_write_on_the_replica_fails_with_SQLITE_READONLY_saying_to_write_to_the_primary_and_changes_nothing()
    {
        using var sql = new ReplicatedSql();
        sql.OnPrimary("db", "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)", "INSERT INTO t(v) VALUES ('a'), ('b')");

        await sql.StartReplicaAsync();
        using var replica = sql.OpenReplica("db");
        var rows = replica.Rows("SELECT * FROM t ORDER BY id");
        var schema = replica.Rows("SELECT * FROM sqlite_schema ORDER BY name");
        var applied = sql.Replica.LastCommittedTransactionId;

        string[] writes =
        [
            "INSERT INTO t(v) VALUES ('c')",
            "UPDATE t SET v = 'x'",
            "DELETE FROM t",
            "CREATE TABLE u(x)",
            "CREATE INDEX t_v ON t(v)",
            "DROP TABLE t",
            "ALTER TABLE t ADD COLUMN w",
            "PRAGMA user_version = 5",
            "VACUUM",
            "BEGIN IMMEDIATE",
        ];
        foreach (var write in writes)
        {
            AssertRefused(write, () => replica.Execute(write));
            Assert.Equal(rows, replica.Rows("SELECT * FROM t ORDER BY id"));
        }

        // A deferred transaction that read first asks for the write lock at its first write.
        replica.Execute("BEGIN");
        Assert.Equal(rows, replica.Rows("SELECT * FROM t ORDER BY id"));
        AssertRefused("an INSERT after a read", () => replica.Execute("INSERT INTO t(v) VALUES ('after a read')"));
        replica.RollbackIfOpen();

        // Mode=ReadOnly: SQLite refuses on its own, with the same code.
        using (var readOnly = sql.OpenReplica("db", SqliteOpenMode.ReadOnly))
        {
            var refused = Assert.Throws<SqliteException>(() => readOnly.Execute("INSERT INTO t(v) VALUES ('c')"));
            Assert.Equal(SqliteReadOnly, refused.SqliteErrorCode);
        }

        // A deferred read transaction is the way to read consistently across statements.
        replica.Execute("BEGIN DEFERRED");
        Assert.Equal(rows, replica.Rows("SELECT * FROM t ORDER BY id"));
        replica.Execute("COMMIT");

        Assert.Equal(applied, sql.Replica.LastCommittedTransactionId); // nothing was written here
        Assert.Equal(schema, replica.Rows("SELECT * FROM sqlite_schema ORDER BY name"));
        Assert.Equal("ok", replica.IntegrityCheck());
        Assert.Equal(0L, sql.ReplicaSql.GetStatistics("db").WriteTransactions);

        // The replica still follows.
        sql.OnPrimary("db", "INSERT INTO t(v) VALUES ('c')");

        await sql.CatchUpAsync();
        Assert.Equal(3L, replica.Scalar<long>("SELECT count(*) FROM t"));
    }

    [Fact]
    public async Task VACUUM_INTO_an_absolute_path_copies_a_replica_database_to_a_plain_SQLite_file()
    {
        using var sql = new ReplicatedSql();
        await sql.StartReplicaAsync();
        sql.OnPrimary("db", "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)", "INSERT INTO t(v) VALUES ('a'), ('b')");

        await sql.CatchUpAsync();
        var target = sql.Combine("copy.db");
        using (var replica = sql.OpenReplica("db"))
        {
            replica.Execute($"VACUUM INTO '{target}'"); // V12: an OS file, written by SQLite's default VFS
        }

        using var copy = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = target, Pooling = false }.ToString());
        copy.Open();
        Assert.Equal(Table([1L, "a"], [2L, "b"]), copy.Rows("SELECT id, v FROM t ORDER BY id"));
    }

    [Fact]
    public async Task Opening_a_database_the_replica_does_not_hold_fails_with_SQLITE_CANTOPEN_and_creates_nothing()
    {
        using var sql = new ReplicatedSql();
        await sql.StartReplicaAsync();
        foreach (var mode in new[] { SqliteOpenMode.ReadWriteCreate, SqliteOpenMode.ReadWrite, SqliteOpenMode.ReadOnly })
        {
            var refused = Assert.Throws<SqliteException>(() => sql.OpenReplica("later", mode));
            Assert.Equal(SqliteCantOpen, refused.SqliteErrorCode);
            if (mode == SqliteOpenMode.ReadWriteCreate)
            {
                var reason = Assert.IsType<ReadReplicaException>(VoronSqlite.LastError);
                Assert.Contains("does not exist on this read replica", reason.Message, StringComparison.Ordinal);
                Assert.Contains("create the database on the primary", reason.Message, StringComparison.Ordinal);
            }
        }

        Assert.Throws<SqliteException>(() => sql.ReplicaSql.OpenConnection("later"));
        using (var read = sql.Replica.BeginRead())
        {
            Assert.Null(read.OpenPageFile("later"));
        }

        sql.OnPrimary("later", "CREATE TABLE t(v)", "INSERT INTO t VALUES ('there')");

        await sql.CatchUpAsync();
        using var replica = sql.OpenReplica("later");
        Assert.Equal("there", replica.Scalar<string>("SELECT v FROM t"));
    }

    [Fact]
    public async Task A_row_the_primary_committed_through_SQL_is_read_on_the_replica_once_it_waited_for_the_primary_transaction_id()
    {
        using var sql = new ReplicatedSql(shipInBackground: true); // the primary ships on its own, as in production
        sql.OnPrimary("db", "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");

        await sql.StartReplicaAsync();
        using var writer = sql.OpenPrimary("db");
        using var reader = sql.OpenReplica("db");
        for (var n = 1; n <= 5; n++)
        {
            writer.Execute("INSERT INTO t(v) VALUES ($v)", ("$v", $"row {n}"));
            var token = sql.Primary.LastCommittedTransactionId; // read your writes: the token of the commit

            using var timeout = new CancellationTokenSource(ReplicatedSql.Patience);
            await sql.Replica.WaitForTransactionAsync(token, timeout.Token);
            Assert.Equal($"row {n}", reader.Scalar<string>("SELECT v FROM t ORDER BY id DESC LIMIT 1"));
            Assert.Equal(n, reader.Scalar<long>("SELECT count(*) FROM t"));
        }
    }

    private static void AssertRefused(string what, Action write)
    {
        var refused = Assert.Throws<SqliteException>(write);
        Assert.True(refused.SqliteErrorCode == SqliteReadOnly, $"{what}: {refused.SqliteErrorCode} {refused.Message}");
        var reason = Assert.IsType<ReadReplicaException>(VoronSqlite.LastError);
        Assert.Contains("read replica", reason.Message, StringComparison.Ordinal);
        Assert.Contains("write to the primary", reason.Message, StringComparison.Ordinal);
        Assert.Contains("WaitForTransactionAsync", reason.Message, StringComparison.Ordinal);
    }

    private static List<object?[]> Table(params object?[][] rows) => [.. rows];
}
