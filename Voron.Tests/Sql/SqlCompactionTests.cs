namespace Voron.Tests.Sql;

/// <summary>A SQLite database kept in page files comes out of compaction (CP1) with the same rows, a clean integrity_check and no larger.</summary>
public sealed class SqlCompactionTests
{
    [Fact]
    public void Compaction_keeps_a_sqlite_database_intact()
    {
        using var fileSystem = Core.Engine.StoreFactory.NewFileSystem();
        List<object?[]> rows;
        using (var store = new SqlStore(fileSystem))
        {
            using (var connection = store.Open("db", pooling: false))
            {
                connection.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
                connection.Execute("CREATE INDEX t_v ON t(v)");
                using (var transaction = connection.BeginTransaction())
                {
                    for (var i = 0; i < 2000; i++)
                    {
                        using var insert = connection.CreateCommand();
                        insert.Transaction = transaction;
                        insert.CommandText = "INSERT INTO t(v) VALUES ($v)";
                        insert.Parameters.AddWithValue("$v", new string((char)('a' + (i % 26)), 1 + (i % 300)));
                        insert.ExecuteNonQuery();
                    }

                    transaction.Commit();
                }

                connection.Execute("DELETE FROM t WHERE id % 3 = 0");
                rows = connection.Rows("SELECT id, v FROM t ORDER BY id");
            }

            SqliteConnection.ClearAllPools();
        }

        var options = StorageEnvironmentOptions.ForFileSystem("/store", fileSystem);
        options.MaxDataFileSize = 4L << 30;
        var result = StorageEnvironment.Compact(options, null, default);
        // SQLite keeps its deleted rows' pages on its own freelist (no VACUUM), so the page file keeps
        // its blocks; the store's file holds little else since a clean close truncates it (PG6).
        Assert.True(result.DataFileBytesAfter <= result.DataFileBytesBefore, $"{result.DataFileBytesAfter:N0} > {result.DataFileBytesBefore:N0}");

        using var compacted = new SqlStore(fileSystem);
        using var reader = compacted.Open("db", pooling: false);
        Assert.Equal("ok", reader.IntegrityCheck());
        Assert.Equal(rows, reader.Rows("SELECT id, v FROM t ORDER BY id"));
        compacted.Environment.CheckIntegrity();
    }
}
