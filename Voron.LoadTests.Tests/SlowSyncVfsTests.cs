using System.Diagnostics;
using Microsoft.Data.Sqlite;
using Voron.LoadTests.Measurement.SlowSync;
using Xunit.Abstractions;

namespace Voron.LoadTests.Tests;

/// <summary>
/// The pass-through VFS that gives stock SQLite a slower disk (Measurement/SlowSync): a database
/// kept through it is the same database as through the default VFS, and every xSync waits the
/// delay. Delays are checked as lower bounds only (a sleep never ends early), never as upper ones.
/// </summary>
public sealed class SlowSyncVfsTests(ITestOutputHelper output) : IDisposable
{
    private readonly TempDirectory _directory = new();

    private static SlowSyncVfs NewVfs(TimeSpan delay) => SlowSyncVfs.Register("slowsync-test-" + Guid.NewGuid().ToString("N")[..12], delay);

    private static SqliteConnection Open(string file, string? vfs)
    {
        var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = file, Pooling = false, Vfs = vfs }.ToString());
        connection.Open();
        Execute(connection, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE IF NOT EXISTS t(k INTEGER PRIMARY KEY, v TEXT NOT NULL)");
        return connection;
    }

    /// <summary>Runs <paramref name="sql"/> to its end; returns the rows it changed (SQLite's changes()).</summary>
    private static int Execute(SqliteConnection connection, string sql, params (string Name, object Value)[] parameters)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        foreach (var (name, value) in parameters)
        {
            command.Parameters.AddWithValue(name, value);
        }

        using var reader = command.ExecuteReader();
        do
        {
            while (reader.Read())
            {
            }
        }
        while (reader.NextResult());
        return reader.RecordsAffected;
    }

    private static List<string> Rows(SqliteConnection connection)
    {
        using var command = connection.CreateCommand();
        command.CommandText = "SELECT k, v FROM t ORDER BY k";
        using var reader = command.ExecuteReader();
        var rows = new List<string>();
        while (reader.Read())
        {
            rows.Add($"{reader.GetInt64(0)}={reader.GetString(1)}");
        }

        return rows;
    }

    [Fact]
    public void The_native_structs_have_sqlite3_h_64_bit_sizes()
    {
        Assert.Equal(168, System.Runtime.CompilerServices.Unsafe.SizeOf<SqliteVfsStruct>());
        Assert.Equal(152, System.Runtime.CompilerServices.Unsafe.SizeOf<SqliteIoMethods>());
        Assert.Equal(16, System.Runtime.CompilerServices.Unsafe.SizeOf<SlowSyncFile>());
    }

    [Fact]
    public void It_wraps_the_default_vfs_and_one_delay_shares_one_registration()
    {
        var vfs = SlowSyncVfs.For(TimeSpan.FromMilliseconds(1.5));

        Assert.Same(vfs, SlowSyncVfs.For(TimeSpan.FromMilliseconds(1.5)));
        Assert.Equal("slowsync-1500us", vfs.Name);
        Assert.Equal(OperatingSystem.IsWindows() ? "win32" : "unix", vfs.InnerName);
        Assert.Throws<InvalidOperationException>(() => SlowSyncVfs.Register(vfs.Name, TimeSpan.Zero));
    }

    [Fact]
    public void Every_durable_commit_syncs_through_it_and_waits_the_delay_inside_the_commit()
    {
        var delay = TimeSpan.FromMilliseconds(50);
        var vfs = NewVfs(delay);
        using var connection = Open(_directory.Combine("slow.db"), vfs.Name);
        const int commits = 4;
        var syncsBefore = vfs.Syncs;

        var clock = Stopwatch.StartNew();
        for (var i = 0; i < commits; i++)
        {
            Execute(connection, "INSERT INTO t(k, v) VALUES ($k, 'x')", ("$k", i));
        }

        clock.Stop();
        var syncs = vfs.Syncs - syncsBefore;
        output.WriteLine($"{commits} commits: {syncs} xSync calls, {clock.Elapsed.TotalMilliseconds:F1} ms");
        Assert.True(syncs >= commits, $"WAL with synchronous=FULL syncs the WAL at every commit: {syncs} xSync calls for {commits} commits");
        Assert.True(clock.Elapsed >= delay * commits, $"{commits} commits took {clock.Elapsed.TotalMilliseconds:F1} ms, less than {commits} × {delay.TotalMilliseconds} ms: a commit returned before its delayed sync");
    }

    [Fact]
    public void A_checkpoint_syncs_through_it_too()
    {
        var vfs = NewVfs(TimeSpan.Zero);
        using var connection = Open(_directory.Combine("checkpoint.db"), vfs.Name);
        Execute(connection, "INSERT INTO t(k, v) VALUES (1, 'x')");
        var before = vfs.Syncs;

        Execute(connection, "PRAGMA wal_checkpoint(TRUNCATE)");

        Assert.True(vfs.Syncs - before >= 2, $"a checkpoint syncs the WAL and the database file: {vfs.Syncs - before} xSync calls");
    }

    /// <summary>
    /// Differential: a seeded random run of inserts, updates, deletes, multi-statement
    /// transactions, rollbacks and checkpoints, once through the pass-through VFS and once through
    /// the default VFS, leaves the same rows, which the default VFS reads back from the first
    /// database file too (the files are ordinary SQLite files); every commit made at least one xSync.
    /// </summary>
    [Fact]
    public void A_random_run_through_it_leaves_the_same_database_as_through_the_default_vfs()
    {
        var seed = TestSeed.Next(output, nameof(A_random_run_through_it_leaves_the_same_database_as_through_the_default_vfs));
        var vfs = NewVfs(TimeSpan.Zero);
        var slowFile = _directory.Combine("random-slow.db");
        var plainFile = _directory.Combine("random-plain.db");
        int commits;
        using (var slow = Open(slowFile, vfs.Name))
        using (var plain = Open(plainFile, null))
        {
            var before = vfs.Syncs;
            commits = Run(slow, new Random(seed));
            Run(plain, new Random(seed));
            Assert.True(vfs.Syncs - before >= commits, $"seed {seed}: {vfs.Syncs - before} xSync calls for {commits} commits");
            Assert.Equal(Rows(plain), Rows(slow));
        }

        using var reopened = Open(slowFile, null);
        using var reference = Open(plainFile, null);
        Assert.Equal(Rows(reference), Rows(reopened));
        Execute(reopened, "PRAGMA integrity_check");
        output.WriteLine($"seed {seed}: {commits} commits, {vfs.Syncs} xSync calls, {Rows(reference).Count} rows");
    }

    /// <summary>The random operations; returns the commits it made.</summary>
    private static int Run(SqliteConnection connection, Random random)
    {
        var commits = 0;
        for (var step = 0; step < 60; step++)
        {
            var key = random.Next(40);
            var value = new string((char)('a' + random.Next(26)), random.Next(1, 3000)); // some rows span overflow pages
            switch (random.Next(6))
            {
                case 0 or 1:
                    Execute(connection, "INSERT OR REPLACE INTO t(k, v) VALUES ($k, $v)", ("$k", key), ("$v", value));
                    commits++;
                    break;
                // An UPDATE or DELETE that matches no row writes nothing, so SQLite commits without
                // a sync: only one that changed a row counts as a commit.
                case 2:
                    commits += Math.Min(1, Execute(connection, "UPDATE t SET v = v || $v WHERE k = $k", ("$k", key), ("$v", value[..Math.Min(10, value.Length)])));
                    break;
                case 3:
                    commits += Math.Min(1, Execute(connection, "DELETE FROM t WHERE k = $k", ("$k", key)));
                    break;
                case 4:
                    using (var transaction = connection.BeginTransaction())
                    {
                        for (var i = 0; i < 5; i++)
                        {
                            Execute(connection, "INSERT OR REPLACE INTO t(k, v) VALUES ($k, $v)", ("$k", random.Next(40)), ("$v", value));
                        }

                        if (random.Next(3) == 0)
                        {
                            transaction.Rollback();
                        }
                        else
                        {
                            transaction.Commit();
                            commits++;
                        }
                    }

                    break;
                default:
                    Execute(connection, random.Next(2) == 0 ? "PRAGMA wal_checkpoint(PASSIVE)" : "PRAGMA wal_checkpoint(TRUNCATE)");
                    break;
            }
        }

        return commits;
    }

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        _directory.Dispose();
    }
}
