namespace Voron.Tests.Sql;

/// <summary>
/// A hot backup of a store holding a SQLite database (BK5: one snapshot of every page), taken
/// while a connection commits: the restored database passes integrity_check and holds a prefix of
/// the committed transactions, each whole.
/// </summary>
public sealed class SqlBackupTests
{
    private const int RowsPerTransaction = 10;

    [Fact]
    public async Task A_backup_during_sqlite_commits_restores_a_database_that_passes_integrity_check_with_whole_transactions()
    {
        using var fileSystem = Core.Engine.StoreFactory.NewFileSystem();
        long committedBefore;
        long committedAfter;
        using (var store = new SqlStore(fileSystem))
        {
            using (var setup = store.Open("db", pooling: false))
            {
                setup.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
                setup.Execute("CREATE INDEX t_v ON t(v)");
            }

            long committed = 0;
            using var stop = new CancellationTokenSource();
            var writer = Task.Run(() =>
            {
                using var connection = store.Open("db", pooling: false);
                for (var n = 0; !stop.IsCancellationRequested || n < 20; n++)
                {
                    using (var transaction = connection.BeginTransaction())
                    {
                        for (var i = 0; i < RowsPerTransaction; i++)
                        {
                            using var insert = connection.CreateCommand();
                            insert.Transaction = transaction;
                            insert.CommandText = "INSERT INTO t(v) VALUES ($v)";
                            insert.Parameters.AddWithValue("$v", new string((char)('a' + (n % 26)), 1 + ((n * 7) + i) % 400));
                            insert.ExecuteNonQuery();
                        }

                        transaction.Commit();
                    }

                    Interlocked.Increment(ref committed);
                }
            });

            while (Interlocked.Read(ref committed) < 10)
            {
                await Task.Delay(5);
            }

            committedBefore = Interlocked.Read(ref committed);
            await store.Environment.BackupAsync("/backup");
            committedAfter = Interlocked.Read(ref committed) + 1; // one more may have been acknowledged in between
            await stop.CancelAsync();
            await writer;
            SqliteConnection.ClearAllPools();
        }

        // Restore over an emptied /store (the only directory SqlStore opens) and read it back.
        foreach (var file in fileSystem.ListFiles("/store/journal", "*").Concat(fileSystem.ListFiles("/store", "*")))
        {
            fileSystem.DeleteFile(file);
        }

        await StorageEnvironment.RestoreCoreAsync(fileSystem, "/backup", "/store", null, 4L << 30, CancellationToken.None);
        using var restored = new SqlStore(fileSystem);
        using var reader = restored.Open("db", pooling: false);
        Assert.Equal("ok", reader.IntegrityCheck());
        var ids = reader.Rows("SELECT id FROM t ORDER BY id").Select(r => (long)r[0]!).ToList();
        Assert.Equal(0, ids.Count % RowsPerTransaction); // whole transactions only
        var transactions = ids.Count / RowsPerTransaction;
        Assert.InRange(transactions, committedBefore, committedAfter);
        Assert.Equal(Enumerable.Range(1, ids.Count).Select(i => (long)i), ids); // a prefix of the commits, in order
    }
}
