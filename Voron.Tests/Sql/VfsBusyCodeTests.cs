using Voron.Tests.Sql.Documents;

namespace Voron.Tests.Sql;

/// <summary>
/// Every SQLITE_BUSY the VFS answers says which of its two causes it is, as stock SQLite in WAL
/// mode does: a write lock held by another connection is plain SQLITE_BUSY (extended code 5,
/// V1: wait and try the statement again), and a transaction whose snapshot went stale is
/// SQLITE_BUSY_SNAPSHOT (517, V6 and V16: roll back and run the transaction again), whether or
/// not the connection set a busy handler, and for rows and documents alike.
/// </summary>
public sealed class VfsBusyCodeTests
{
    public enum Cause
    {
        /// <summary>Another connection holds the write lock in an open transaction.</summary>
        LockHeld,

        /// <summary>A deferred transaction read rows that another connection then changed.</summary>
        StaleRows,

        /// <summary>A deferred transaction read a document that a session then changed.</summary>
        StaleDocuments,
    }

    public static TheoryData<Cause, int?> Cases()
    {
        var data = new TheoryData<Cause, int?>();
        foreach (var cause in Enum.GetValues<Cause>())
        {
            data.Add(cause, null);
            data.Add(cause, 50);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task A_refused_write_says_whether_the_lock_was_busy_or_the_snapshot_stale(Cause cause, int? busyTimeoutMs)
    {
        using var store = new DocsStore();
        using var other = store.Open();
        other.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
        other.Execute("INSERT INTO t(v) VALUES ('a')");
        other.Execute("CREATE VIRTUAL TABLE d USING voron_docs(D)");
        other.Execute("INSERT INTO d(id, body) VALUES ('d/1', '{}')");

        using var connection = store.Open();
        connection.DefaultTimeout = 1; // Microsoft.Data.Sqlite retries a plain SQLITE_BUSY for this long
        if (busyTimeoutMs is { } ms)
        {
            connection.Execute($"PRAGMA busy_timeout = {ms}");
        }

        connection.Execute("BEGIN");
        connection.Execute(cause == Cause.StaleDocuments ? "SELECT body FROM d WHERE id = 'd/1'" : "SELECT count(*) FROM t");
        switch (cause)
        {
            case Cause.LockHeld:
                other.Execute("BEGIN IMMEDIATE");
                break;
            case Cause.StaleRows:
                other.Execute("UPDATE t SET v = 'b'");
                break;
            case Cause.StaleDocuments:
                await store.StoreRawAsync("D", "d/1", """{"n":1}""");
                break;
        }

        var error = Assert.Throws<SqliteException>(() => connection.Execute(cause == Cause.StaleDocuments ? "UPDATE d SET body = '{}' WHERE id = 'd/1'" : "UPDATE t SET v = 'c'"));
        Assert.Equal(5, error.SqliteErrorCode);
        Assert.Equal(cause == Cause.LockHeld ? 5 : 517, error.SqliteExtendedErrorCode);
        connection.Execute("ROLLBACK");
        if (cause == Cause.LockHeld)
        {
            other.Execute("ROLLBACK");
        }

        // Run again, the transaction succeeds.
        connection.Execute("BEGIN");
        connection.Execute(cause == Cause.StaleDocuments ? "UPDATE d SET body = '{}' WHERE id = 'd/1'" : "UPDATE t SET v = 'c'");
        connection.Execute("COMMIT");
    }
}
