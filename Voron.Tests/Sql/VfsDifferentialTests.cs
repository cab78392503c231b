using System.Security.Cryptography;

namespace Voron.Tests.Sql;

/// <summary>
/// Seeded random SQL workloads run on Vfs=voron and on a stock SQLite file side by side: every
/// query gives the same rows, and PRAGMA integrity_check stays ok. Tables with indexes, inserts,
/// updates, deletes, large blobs (overflow pages), transactions rolled back, VACUUM (also one that
/// changes the page size, so 4 KiB and 16 KiB SQLite pages run on 8 KiB store pages), schema
/// changes, several connections, and a crash and recovery of the store in the middle.
/// </summary>
public sealed class VfsDifferentialTests(ITestOutputHelper output)
{
    private const int Steps = 600;

    [Fact]
    public void Random_workloads_give_the_same_results_as_stock_sqlite()
    {
        var seed = TestSeed.Next(output, nameof(Random_workloads_give_the_same_results_as_stock_sqlite));
        var random = new Random(seed);
        using var directory = new TempDirectory();
        using var store = new SqlStore();
        var stock = Enumerable.Range(0, 3).Select(_ => Open($"Data Source={directory.Combine("stock.db")};Pooling=False")).ToList();
        var voron = Enumerable.Range(0, 3).Select(_ => store.Open("diff", pooling: false)).ToList();
        stock[0].Execute("PRAGMA synchronous=OFF"); // the comparison does not need the stock file durable
        try
        {
            // Vfs=voron gives a new database 8 KiB pages where a stock file gets 4 KiB
            // (VfsPageSizeTests): the stock file starts at 8 KiB too, so PRAGMA page_size compares at
            // the end even when no step changed it. Set on a connection of its own, as below: a
            // connection's PRAGMA page_size applies again to every later VACUUM it runs.
            using (var creator = Open($"Data Source={directory.Combine("stock.db")};Pooling=False"))
            {
                creator.Execute("PRAGMA page_size=8192");
                Both(creator, voron[0], "CREATE TABLE t0(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c BLOB)");
                Both(creator, voron[0], "CREATE INDEX t0_a ON t0(a)");
            }

            Assert.Equal(stock[0].Scalar<long>("SELECT count(*) FROM sqlite_schema"), voron[0].Scalar<long>("SELECT count(*) FROM sqlite_schema"));
            Assert.Equal(stock[0].Scalar<long>("PRAGMA page_size"), voron[0].Scalar<long>("PRAGMA page_size"));
            var tables = new List<string> { "t0" };
            var columns = new Dictionary<string, int> { ["t0"] = 0 };
            for (var step = 0; step < Steps; step++)
            {
                if (step == Steps / 2)
                {
                    // The store crashes and recovers; the stock file is left as it is.
                    voron.ForEach(x => x.Dispose());
                    store.Reopen();
                    voron = [.. Enumerable.Range(0, 3).Select(_ => store.Open("diff", pooling: false))];
                }

                var c = random.Next(stock.Count);
                var (s, v) = (stock[c], voron[c]);
                var table = tables[random.Next(tables.Count)];
                var where = $"seed {seed} step {step}";
                switch (random.Next(20))
                {
                    case < 6:
                        Both(s, v, $"INSERT INTO {table}(a, b, c) VALUES ($a, $b, $c)", Values(random));
                        break;
                    case < 8:
                        Both(s, v, $"UPDATE {table} SET a = a + $d, b = $b WHERE id % 7 = $m", ("$d", random.Next(100)), ("$b", Text(random)), ("$m", random.Next(7)));
                        break;
                    case 8:
                        Both(s, v, $"DELETE FROM {table} WHERE a % 5 = $m", ("$m", random.Next(5)));
                        break;
                    case 9:
                        Both(s, v, $"INSERT INTO {table}(a, b, c) VALUES ($a, 'big', randomblob(0))", ("$a", random.Next(1000)));
                        Both(s, v, $"UPDATE {table} SET c = $c WHERE id = (SELECT max(id) FROM {table})", ("$c", Blob(random, random.Next(20_000, 300_000))));
                        break;
                    case 10:
                    {
                        // A transaction that changes several tables, rolled back or committed.
                        var commit = random.Next(2) == 0;
                        var values = Values(random); // drawn once: the body runs on both sides
                        Transaction(s, v, commit, tx =>
                        {
                            tx($"INSERT INTO {table}(a, b, c) VALUES ($a, $b, $c)", values);
                            tx($"UPDATE {table} SET b = 'tx' WHERE id % 3 = 0", []);
                            tx($"DELETE FROM {table} WHERE id % 11 = 0", []);
                        });
                        break;
                    }

                    case 11:
                        if (tables.Count < 4)
                        {
                            var name = "t" + (tables.Count + step);
                            Both(s, v, $"CREATE TABLE {name}(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c BLOB)");
                            Both(s, v, $"CREATE INDEX {name}_b ON {name}(b, a)");
                            tables.Add(name);
                            columns[name] = 0;
                        }
                        else
                        {
                            var drop = tables[^1];
                            Both(s, v, $"DROP TABLE {drop}");
                            tables.Remove(drop);
                        }

                        break;
                    case 12:
                        if (columns[table] < 3)
                        {
                            Both(s, v, $"ALTER TABLE {table} ADD COLUMN x{columns[table]} TEXT DEFAULT 'd{columns[table]}'");
                            columns[table]++;
                        }

                        break;
                    case 13:
                        if (random.Next(6) == 0)
                        {
                            var pageSize = new[] { 4096, 8192, 16384 }[random.Next(3)];
                            // On connections of their own: PRAGMA page_size stays pending on a connection
                            // for its next VACUUM, and the voron connections are reopened mid-run.
                            using var stockOnce = Open($"Data Source={directory.Combine("stock.db")};Pooling=False");
                            using var voronOnce = store.Open("diff", pooling: false);
                            Both(stockOnce, voronOnce, $"PRAGMA page_size={pageSize}");
                            Both(stockOnce, voronOnce, "VACUUM");
                        }
                        else if (random.Next(3) == 0)
                        {
                            Both(s, v, "VACUUM");
                        }

                        break;
                    default:
                        Compare(s, v, $"SELECT count(*), sum(a), group_concat(b) FROM {table} WHERE a BETWEEN $x AND $x + 200", where, ("$x", random.Next(1000)));
                        break;
                }

                if (step % 50 == 49)
                {
                    foreach (var t in tables)
                    {
                        Compare(s, v, $"SELECT * FROM {t} ORDER BY id", where);
                    }

                    Assert.Equal("ok", v.IntegrityCheck());
                }
            }

            ConcurrentPhase(store, stock[0], voron[0], seed);
            Assert.Equal("ok", voron[0].IntegrityCheck());
            Compare(stock[0], voron[0], "SELECT name, sql FROM sqlite_schema ORDER BY name", $"seed {seed} schema");
            // PRAGMA page_size reports what the connection last read from page 1: read it first.
            Assert.Equal(stock[0].Scalar<long>("SELECT count(*) FROM sqlite_schema"), voron[0].Scalar<long>("SELECT count(*) FROM sqlite_schema"));
            Assert.Equal(stock[0].Scalar<long>("PRAGMA page_size"), voron[0].Scalar<long>("PRAGMA page_size"));
            store.Environment.CheckIntegrity();
        }
        finally
        {
            stock.ForEach(x => x.Dispose());
            voron.ForEach(x => x.Dispose());
        }
    }

    /// <summary>Eight connections write at once on Vfs=voron while two read; the stock file gets the same rows one by one.</summary>
    private static void ConcurrentPhase(SqlStore store, SqliteConnection stock, SqliteConnection voron, int seed)
    {
        const string create = "CREATE TABLE tc(id INTEGER PRIMARY KEY, conn INTEGER, seq INTEGER, payload BLOB)";
        Both(stock, voron, create);
        Both(stock, voron, "CREATE INDEX tc_conn ON tc(conn, seq)");
        byte[] Payload(int c, int i) => Blob(new Random(seed ^ (c * 1000 + i)), (c * 37 + i * 101) % 5000);
        using var stop = new CancellationTokenSource();
        var readers = Enumerable.Range(0, 2).Select(_ => Task.Run(() =>
        {
            using var reader = store.Open("diff", pooling: false);
            while (!stop.IsCancellationRequested)
            {
                reader.Scalar<long>("SELECT count(*) FROM tc");
            }
        })).ToArray();
        var writers = Enumerable.Range(0, 8).Select(c => new Thread(() =>
        {
            using var writer = store.Open("diff", pooling: false);
            for (var i = 0; i < 30; i++)
            {
                writer.Execute("INSERT INTO tc(conn, seq, payload) VALUES ($c, $i, $p)", ("$c", c), ("$i", i), ("$p", Payload(c, i)));
            }
        })).ToList();
        writers.ForEach(t => t.Start());
        writers.ForEach(t => t.Join());
        stop.Cancel();
        Task.WaitAll(readers);
        for (var c = 0; c < 8; c++)
        {
            for (var i = 0; i < 30; i++)
            {
                stock.Execute("INSERT INTO tc(conn, seq, payload) VALUES ($c, $i, $p)", ("$c", c), ("$i", i), ("$p", Payload(c, i)));
            }
        }

        Compare(stock, voron, "SELECT conn, seq, payload FROM tc ORDER BY conn, seq", $"seed {seed} concurrent phase");
    }

    private static SqliteConnection Open(string connectionString)
    {
        var connection = new SqliteConnection(connectionString);
        connection.Open();
        return connection;
    }

    private static (string, object?)[] Values(Random random) =>
        [("$a", random.Next(1000)), ("$b", Text(random)), ("$c", random.Next(4) == 0 ? null : Blob(random, random.Next(0, 3000)))];

    private static string Text(Random random) => new string('a', random.Next(0, 40)) + random.Next(1000);

    private static byte[] Blob(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }

    private static void Both(SqliteConnection stock, SqliteConnection voron, string sql, params (string, object?)[] parameters)
    {
        stock.Execute(sql, parameters);
        voron.Execute(sql, parameters);
    }

    private static void Transaction(SqliteConnection stock, SqliteConnection voron, bool commit, Action<Action<string, (string, object?)[]>> body)
    {
        foreach (var connection in new[] { stock, voron })
        {
            using var transaction = connection.BeginTransaction();
            body((sql, parameters) =>
            {
                using var command = connection.CreateCommand();
                command.Transaction = transaction;
                command.CommandText = sql;
                foreach (var (name, value) in parameters)
                {
                    command.Parameters.AddWithValue(name, value ?? DBNull.Value);
                }

                command.ExecuteNonQuery();
            });
            if (commit)
            {
                transaction.Commit();
            }
            else
            {
                transaction.Rollback();
            }
        }
    }

    private static void Compare(SqliteConnection stock, SqliteConnection voron, string sql, string where, params (string, object?)[] parameters)
    {
        var expected = Rows(stock, sql, parameters);
        var actual = Rows(voron, sql, parameters);
        if (!expected.SequenceEqual(actual))
        {
            var first = Enumerable.Range(0, Math.Max(expected.Count, actual.Count))
                .First(i => i >= expected.Count || i >= actual.Count || expected[i] != actual[i]);
            Assert.Fail($"{where}: Vfs=voron and stock SQLite differ on {sql}: {expected.Count} rows against {actual.Count}; " +
                        $"first difference at row {first}: stock [{(first < expected.Count ? expected[first] : "none")}], voron [{(first < actual.Count ? actual[first] : "none")}]");
        }
    }

    private static List<string> Rows(SqliteConnection connection, string sql, (string, object?)[] parameters)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        foreach (var (name, value) in parameters)
        {
            command.Parameters.AddWithValue(name, value ?? DBNull.Value);
        }

        using var reader = command.ExecuteReader();
        var rows = new List<string>();
        while (reader.Read())
        {
            var text = new StringBuilder();
            for (var i = 0; i < reader.FieldCount; i++)
            {
                var value = reader.IsDBNull(i) ? "NULL" : reader.GetValue(i) is byte[] bytes ? $"blob {bytes.Length} {Convert.ToHexString(SHA256.HashData(bytes))[..12]}" : Convert.ToString(reader.GetValue(i), System.Globalization.CultureInfo.InvariantCulture);
                text.Append(value).Append('|');
            }

            rows.Add(text.ToString());
        }

        return rows;
    }
}
