using System.Collections.Concurrent;
using Voron.Tests.Sql;

namespace Voron.Tests.Sql.Crash;

/// <summary>
/// A SQL workload on Vfs=voron over the crash simulator, and its oracle. Each transaction of
/// connection c in database d appends row (c, s) to <c>log</c> and sets <c>totals</c>' row c to
/// s + 1 in one SQLite transaction (BEGIN IMMEDIATE ... COMMIT), so after any crash:
/// <list type="number">
/// <item>every acknowledged COMMIT (it returned) is present;</item>
/// <item>nothing was invented: each row present was attempted;</item>
/// <item>no partial transaction: for each connection the log holds exactly 0..n-1 and totals says n;</item>
/// <item>PRAGMA integrity_check is ok, the store passes CheckIntegrity, and both accept a new commit.</item>
/// </list>
/// </summary>
internal sealed class SqlCrashScenario(string name, int databases, int connections, int transactions, bool concurrent)
{
    public string Name { get; } = name;

    public bool Deterministic => !concurrent;

    public override string ToString() => Name;

    /// <summary>What one run attempted and acknowledged, by (database, connection, sequence).</summary>
    public sealed class Outcome
    {
        public ConcurrentDictionary<(int Db, int Conn, int Seq), bool> Attempted { get; } = new();

        public ConcurrentDictionary<(int Db, int Conn, int Seq), bool> Acknowledged { get; } = new();
    }

    /// <summary>Runs the workload on <paramref name="machine"/> until it ends or the machine loses power.</summary>
    public Outcome Run(CrashFileSystem machine, int seed)
    {
        var outcome = new Outcome();
        StorageEnvironment environment;
        try
        {
            environment = StorageEnvironment.Open(CrashRun.Options(machine, null));
        }
        catch (Exception) when (machine.HasCrashed)
        {
            return outcome;
        }

        var registration = VoronSqlite.Register(environment, "voron-crash-" + Guid.NewGuid().ToString("N")[..12]);
        try
        {
            if (!Setup(registration))
            {
                return outcome;
            }

            var workers = Enumerable.Range(0, connections).Select(c => (Action)(() => Work(registration, c, seed, outcome, machine))).ToList();
            if (concurrent)
            {
                var threads = workers.Select(w => new Thread(() => w())).ToList();
                threads.ForEach(t => t.Start());
                threads.ForEach(t => t.Join());
            }
            else
            {
                // One thread, connections taking turns transaction by transaction: the same calls in
                // the same order every run, so crash point k is always the same call.
                RoundRobin(registration, seed, outcome, machine);
            }
        }
        finally
        {
            registration.Dispose();
            try
            {
                environment.CloseWithoutFlush();
            }
            catch (Exception e) when (e is IOException or EnvironmentFailedException or ObjectDisposedException or AggregateException)
            {
                _ = e; // the machine is dead; the next open recovers
            }
        }

        return outcome;
    }

    private bool Setup(VoronSqliteRegistration registration)
    {
        try
        {
            for (var d = 0; d < databases; d++)
            {
                using var connection = Open(registration, d);
                connection.Execute(
                    "BEGIN IMMEDIATE; CREATE TABLE log(conn INTEGER, seq INTEGER, payload BLOB, PRIMARY KEY(conn, seq)); " +
                    "CREATE TABLE totals(conn INTEGER PRIMARY KEY, n INTEGER); COMMIT;");
            }

            return true;
        }
        catch (SqliteException)
        {
            return false; // the power failed during setup: the oracle expects nothing but a usable store
        }
    }

    private void Work(VoronSqliteRegistration registration, int conn, int seed, Outcome outcome, CrashFileSystem machine)
    {
        using var connection = Open(registration, conn % databases);
        for (var seq = 0; seq < transactions; seq++)
        {
            if (!Transaction(connection, conn % databases, conn, seq, seed, outcome) || machine.HasCrashed)
            {
                return;
            }
        }
    }

    private void RoundRobin(VoronSqliteRegistration registration, int seed, Outcome outcome, CrashFileSystem machine)
    {
        var open = Enumerable.Range(0, connections).Select(c => Open(registration, c % databases)).ToList();
        try
        {
            for (var seq = 0; seq < transactions; seq++)
            {
                for (var conn = 0; conn < connections; conn++)
                {
                    if (!Transaction(open[conn], conn % databases, conn, seq, seed, outcome) || machine.HasCrashed)
                    {
                        return;
                    }

                    if (conn == 0 && seq % 8 == 7)
                    {
                        registration.Environment.FlushToDataFile(); // crash points in the data file flush too
                    }
                }
            }
        }
        catch (Exception e) when (machine.HasCrashed && e is IOException or EnvironmentFailedException)
        {
            _ = e;
        }
        finally
        {
            open.ForEach(c => c.Dispose());
        }
    }

    /// <summary>One SQLite transaction; false once it failed (after a crash, every later call fails too).</summary>
    private static bool Transaction(SqliteConnection connection, int db, int conn, int seq, int seed, Outcome outcome)
    {
        outcome.Attempted[(db, conn, seq)] = true;
        try
        {
            using var transaction = connection.BeginTransaction();
            using var command = connection.CreateCommand();
            command.Transaction = transaction;
            command.CommandText = "INSERT INTO log VALUES ($c, $s, $p); INSERT OR REPLACE INTO totals VALUES ($c, $s + 1)";
            command.Parameters.AddWithValue("$c", conn);
            command.Parameters.AddWithValue("$s", seq);
            command.Parameters.AddWithValue("$p", Payload(seed, db, conn, seq));
            command.ExecuteNonQuery();
            transaction.Commit();
            outcome.Acknowledged[(db, conn, seq)] = true;
            return true;
        }
        catch (SqliteException)
        {
            return false;
        }
    }

    /// <summary>Checks a recovered disk against the oracle; null when it passes, else why not.</summary>
    public string? Verify(CrashFileSystem disk, Outcome outcome)
    {
        StorageEnvironment environment;
        try
        {
            environment = StorageEnvironment.Open(CrashRun.Options(disk, null));
        }
        catch (Exception e)
        {
            return $"the store did not open after the crash: {e.GetType().Name}: {e.Message}";
        }

        using var registration = VoronSqlite.Register(environment, "voron-verify-" + Guid.NewGuid().ToString("N")[..12]);
        try
        {
            for (var d = 0; d < databases; d++)
            {
                using var connection = Open(registration, d);
                if (connection.Scalar<long>("SELECT count(*) FROM sqlite_schema WHERE name IN ('log', 'totals')") != 2)
                {
                    if (outcome.Acknowledged.Keys.Any(k => k.Db == d) || outcome.Attempted.Keys.Any(k => k.Db == d && k.Seq > 0))
                    {
                        return $"database {d} lost its tables, though its setup committed";
                    }

                    continue;
                }

                if (connection.IntegrityCheck() is var integrity && integrity != "ok")
                {
                    return $"database {d}: integrity_check says {integrity}";
                }

                var rows = connection.Rows("SELECT conn, seq, length(payload) FROM log ORDER BY conn, seq");
                var totals = connection.Rows("SELECT conn, n FROM totals").ToDictionary(r => (long)r[0]!, r => (long)r[1]!);
                foreach (var group in rows.GroupBy(r => (long)r[0]!))
                {
                    var seqs = group.Select(r => (long)r[1]!).ToList();
                    if (!seqs.SequenceEqual(Enumerable.Range(0, seqs.Count).Select(i => (long)i)))
                    {
                        return $"database {d} connection {group.Key}: rows {string.Join(",", seqs)} have a hole";
                    }

                    if (totals.GetValueOrDefault(group.Key) != seqs.Count)
                    {
                        return $"database {d} connection {group.Key}: {seqs.Count} log rows but totals says {totals.GetValueOrDefault(group.Key)}: a partial transaction";
                    }

                    foreach (var seq in seqs)
                    {
                        if (!outcome.Attempted.ContainsKey((d, (int)group.Key, (int)seq)))
                        {
                            return $"database {d}: row ({group.Key}, {seq}) was never attempted";
                        }
                    }
                }

                foreach (var (db, conn, seq) in outcome.Acknowledged.Keys.Where(k => k.Db == d))
                {
                    if (!rows.Any(r => (long)r[0]! == conn && (long)r[1]! == seq))
                    {
                        return $"database {d}: acknowledged commit ({conn}, {seq}) is missing";
                    }
                }

                connection.Execute("INSERT INTO log VALUES (-1, 0, x'00')"); // the recovered database takes a new commit
            }

            environment.CheckIntegrity();
            return null;
        }
        catch (Exception e)
        {
            return $"checking the recovered store failed: {e.GetType().Name}: {e.Message}";
        }
        finally
        {
            registration.Dispose();
            environment.CloseWithoutFlush();
        }
    }

    private static SqliteConnection Open(VoronSqliteRegistration registration, int db)
    {
        var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = "db" + db, Vfs = registration.VfsName, Pooling = false }.ToString());
        connection.Open();
        return connection;
    }

    /// <summary>Mostly small payloads, every fifth on overflow pages.</summary>
    private static byte[] Payload(int seed, int db, int conn, int seq)
    {
        var random = new Random(seed ^ (db * 7919) ^ (conn * 104729) ^ (seq * 31));
        var bytes = new byte[seq % 5 == 4 ? random.Next(9000, 30000) : random.Next(10, 400)];
        random.NextBytes(bytes);
        return bytes;
    }
}
