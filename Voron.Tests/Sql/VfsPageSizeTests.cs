namespace Voron.Tests.Sql;

/// <summary>
/// SQLite's page size on Vfs=voron against a stock SQLite file. SQLite picks a new database's page
/// size when it opens the file (pager.c sqlite3PagerOpen: the larger of SQLITE_DEFAULT_PAGE_SIZE
/// and the file's sector size, 8 KiB at most); it learns an existing one's from page 1 at every
/// transaction that had to drop its cache (btree.c lockBtree), and PRAGMA page_size, which starts
/// no transaction, reports what the connection last learnt (sqlite3BtreeGetPageSize).
/// </summary>
public sealed class VfsPageSizeTests
{
    [Fact]
    public void A_new_database_gets_8_KiB_pages_on_Vfs_voron_and_4_KiB_in_a_stock_SQLite_file()
    {
        // The VFS reports an 8 KiB sector and no POWERSAFE_OVERWRITE (DatabaseFile.SectorSize), so
        // a SQLite page is a store page; the default VFS reports POWERSAFE_OVERWRITE, which makes
        // the sector 512 bytes and leaves SQLite's 4 KiB default. A differential test that lets
        // both sides pick their own size sees them differ without any defect.
        using var directory = new TempDirectory();
        using var store = new SqlStore();
        using var stock = Stock(directory);
        using var voron = store.Open("db", pooling: false);
        foreach (var connection in new[] { stock, voron })
        {
            connection.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER)");
            connection.Execute("VACUUM"); // a VACUUM without PRAGMA page_size keeps the size
        }

        Assert.Equal(4096, stock.Scalar<long>("PRAGMA page_size"));
        Assert.Equal(8192, voron.Scalar<long>("PRAGMA page_size"));
    }

    [Fact]
    public void A_connection_kept_open_learns_the_page_size_another_connections_VACUUM_set_and_reads_and_writes_as_stock_SQLite()
    {
        using var directory = new TempDirectory();
        using var store = new SqlStore();
        using var stock = Stock(directory);
        using var voron = store.Open("db", pooling: false);
        var sides = new[] { (Kept: stock, Other: (Func<SqliteConnection>)(() => Stock(directory))), (Kept: voron, Other: () => store.Open("db", pooling: false)) };
        foreach (var (kept, _) in sides)
        {
            kept.Execute("PRAGMA page_size=8192"); // the same start on both sides: see the test above
            kept.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b BLOB)");
            kept.Execute("CREATE INDEX t_a ON t(a)");
            for (var i = 0; i < 300; i++)
            {
                kept.Execute("INSERT INTO t(a, b) VALUES ($a, zeroblob($n))", ("$a", i % 17), ("$n", i * 37 % 3000));
            }
        }

        var previous = 8192L;
        foreach (var pageSize in new[] { 4096, 16384, 65536, 1024, 8192, 4096 })
        {
            foreach (var (kept, other) in sides)
            {
                Assert.Equal(300, kept.Scalar<long>("SELECT count(*) FROM t")); // its cache holds pages of the old size
                using (var changer = other())
                {
                    changer.Execute($"PRAGMA page_size={pageSize}");
                    changer.Execute("VACUUM");
                    Assert.Equal(pageSize, changer.Scalar<long>("PRAGMA page_size"));
                }

                // Before its next transaction the connection reports the size it last read.
                Assert.Equal(previous, kept.Scalar<long>("PRAGMA page_size"));
            }

            Assert.Equal(Summary(stock), Summary(voron));
            foreach (var (kept, _) in sides)
            {
                Assert.Equal(pageSize, kept.Scalar<long>("PRAGMA page_size"));
                kept.Execute("UPDATE t SET a = a + 1 WHERE id % 5 = 0");
                kept.Execute("INSERT INTO t(a, b) VALUES (-1, zeroblob(5000))");
                kept.Execute("DELETE FROM t WHERE a = -1");
                Assert.Equal("ok", kept.IntegrityCheck());
            }

            Assert.Equal(Summary(stock), Summary(voron));
            previous = pageSize;
        }

        store.Environment.CheckIntegrity();
    }

    [Fact]
    public void A_connections_PRAGMA_page_size_applies_again_to_its_later_VACUUM_on_Vfs_voron_as_on_stock_SQLite()
    {
        // vacuum.c gives the new file db->nextPagesize, the connection's last PRAGMA page_size=N:
        // a plain VACUUM on that connection undoes another connection's change. A differential
        // test must set a page size only on connections it then closes.
        using var directory = new TempDirectory();
        using var store = new SqlStore();
        using var stock = Stock(directory);
        using var voron = store.Open("db", pooling: false);
        var sides = new[] { (Kept: stock, Other: (Func<SqliteConnection>)(() => Stock(directory))), (Kept: voron, Other: () => store.Open("db", pooling: false)) };
        foreach (var (kept, other) in sides)
        {
            kept.Execute("PRAGMA page_size=16384");
            kept.Execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b BLOB)");
            kept.Execute("INSERT INTO t(a, b) VALUES (1, zeroblob(20000))");
            using (var changer = other())
            {
                changer.Execute("PRAGMA page_size=4096");
                changer.Execute("VACUUM");
            }

            Assert.Equal(1, kept.Scalar<long>("SELECT count(*) FROM t"));
            Assert.Equal(4096, kept.Scalar<long>("PRAGMA page_size"));
            kept.Execute("VACUUM");
            Assert.Equal(16384, kept.Scalar<long>("PRAGMA page_size"));
            Assert.Equal("ok", kept.IntegrityCheck());
        }
    }

    private static SqliteConnection Stock(TempDirectory directory)
    {
        var connection = new SqliteConnection($"Data Source={directory.Combine("stock.db")};Pooling=False");
        connection.Open();
        return connection;
    }

    private static string Summary(SqliteConnection connection) =>
        string.Join(";", connection.Rows("SELECT count(*), sum(a), sum(length(b)), group_concat(a) FROM t").Single().Select(v => Convert.ToString(v, System.Globalization.CultureInfo.InvariantCulture)));
}
