namespace Voron.Tests.Sql;

/// <summary>What <see cref="VoronSqliteRegistration.GetStatistics"/> counts: each figure moves with what it says, and only then.</summary>
public sealed class SqlStatisticsTests
{
    [Fact]
    public void Each_write_transaction_counts_once_with_its_lock_turn_and_reads_and_rollbacks_count_nothing()
    {
        using var store = new SqlStore();
        using var connection = store.Open("stats");
        Execute(connection, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)");
        var before = store.Registration.GetStatistics("stats");

        for (var i = 0; i < 10; i++)
        {
            Execute(connection, $"INSERT INTO t VALUES ({i}, 'v{i}')");
        }

        var writes = store.Registration.GetStatistics("stats").Since(before);
        Assert.Equal(10, writes.WriteTransactions);
        Assert.Equal(10, writes.WriteLockAcquisitions);
        Assert.True(writes.WriteLockHeldTime > TimeSpan.Zero);
        Assert.True(writes.CommitCaptureTime > TimeSpan.Zero);
        Assert.True(writes.CommitDurableWaitTime >= TimeSpan.Zero);
        Assert.Equal(0, writes.WriteLockRefusals);
        Assert.Equal(0, writes.WriteLockHandOffs); // nobody waited in line

        var afterWrites = store.Registration.GetStatistics("stats");
        Assert.Equal(10L, Scalar(connection, "SELECT count(*) FROM t"));
        using (var rolledBack = connection.BeginTransaction())
        {
            Execute(connection, "INSERT INTO t VALUES (100, 'gone')", rolledBack);
            rolledBack.Rollback();
        }

        var rest = store.Registration.GetStatistics("stats").Since(afterWrites);
        Assert.Equal(0, rest.WriteTransactions); // the read took no lock; the rollback took it and committed nothing
        Assert.Equal(1, rest.WriteLockAcquisitions);
        Assert.Equal(0, rest.ReadsWaitedForFlush);
    }

    [Fact]
    public void A_writer_refused_the_lock_is_counted_and_a_release_with_one_in_line_is_a_hand_off()
    {
        using var store = new SqlStore(configure: null);
        using var holder = store.Open("busy");
        Execute(holder, "CREATE TABLE t(k INTEGER PRIMARY KEY)");
        var before = store.Registration.GetStatistics("busy");
        using var transaction = holder.BeginTransaction(); // BEGIN IMMEDIATE: the write lock
        using var other = store.Open("busy");
        Execute(other, "PRAGMA busy_timeout = 0");
        using var insert = other.CreateCommand();
        insert.CommandText = "INSERT INTO t VALUES (1)";
        insert.CommandTimeout = 1; // Microsoft.Data.Sqlite retries until then
        var error = Assert.Throws<SqliteException>(() => insert.ExecuteNonQuery());
        Assert.Equal(5, error.SqliteErrorCode);
        transaction.Commit();

        var run = store.Registration.GetStatistics("busy").Since(before);
        Assert.True(run.WriteLockRefusals >= 1, $"refusals: {run.WriteLockRefusals}");
        Assert.True(run.WriteLockWaitTime > TimeSpan.Zero);
        Assert.Equal(1, run.WriteLockAcquisitions);
    }

    [Fact]
    public void A_database_nobody_opened_has_every_counter_at_zero_and_statistics_of_two_databases_do_not_subtract()
    {
        using var store = new SqlStore();
        var none = store.Registration.GetStatistics("never-opened");
        Assert.Equal("never-opened", none.Database);
        Assert.Equal(0, none.WriteTransactions);
        Assert.Equal(TimeSpan.Zero, none.WriteLockHeldTime);

        var other = store.Registration.GetStatistics("other");
        var error = Assert.Throws<ArgumentException>(() => other.Since(none));
        Assert.Contains("same database", error.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => store.Registration.GetStatistics("a/b"));
    }

    private static void Execute(SqliteConnection connection, string sql, SqliteTransaction? transaction = null)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        command.Transaction = transaction;
        command.ExecuteNonQuery();
    }

    private static object? Scalar(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        return command.ExecuteScalar();
    }
}
