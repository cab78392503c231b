using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text.RegularExpressions;
using Voron.Testing.Processes;
using Voron.Tests.Sql;

namespace Voron.Tests.Sql.Crash;

/// <summary>
/// The SIGKILL loop of ProcessKillTests for SQL: a child process (<c>Voron.Testing.Processes crash-child
/// ... sql</c>, Voron.Testing.Processes/SqlCrashChild.cs) writes through Microsoft.Data.Sqlite on Vfs=voron —
/// four connections, two databases — and is killed at a random moment, often while it recovers
/// the store the previous child left. Then: every acknowledged COMMIT, of any run, is present
/// with its exact value; each writer's counter matches its rows (no partial transaction);
/// integrity_check is ok in both databases; the store passes CheckIntegrity.
/// </summary>
public sealed partial class SqlProcessKillTests(ITestOutputHelper output)
{
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);

    [Fact]
    public void Kill_9_while_sql_commits_loses_no_acknowledged_commit()
    {
        var seed = TestSeed.Next(output, nameof(SqlProcessKillTests));
        var kills = Math.Max(20, CrashBudget.Kills / 5);
        using var directory = new TempDirectory();
        var store = directory.Combine("store");
        var acknowledged = new Dictionary<(string Db, string Key), string>();
        var failures = new List<string>();
        var verified = 0;
        for (var run = 0; run < kills && failures.Count < 10; run++)
        {
            var random = new Random(CrashHarness.StateSeed(seed, "sql-kill", run));
            var where = $"run {run} (seed {seed})";
            var lines = RunAndKill(store, seed, run, random, where, failures);
            foreach (var line in lines)
            {
                if (AckLine().Match(line) is { Success: true } ack)
                {
                    acknowledged[(ack.Groups[1].Value, ack.Groups[2].Value)] = ack.Groups[3].Value;
                }
            }

            if (run % 2 == 1 || run == kills - 1)
            {
                Verify(store, acknowledged, where, failures);
                verified++;
            }
        }

        output.WriteLine($"{kills} SQL child processes killed with SIGKILL, {acknowledged.Count} acknowledged commits, {verified} verifications, seed {seed}");
        failures.Take(10).ToList().ForEach(output.WriteLine);
        Assert.True(failures.Count == 0, $"{failures.Count} failures; first: {failures.FirstOrDefault()}");
        Assert.NotEmpty(acknowledged);
    }

    private static ConcurrentQueue<string> RunAndKill(string store, int seed, int run, Random random, string where, List<string> failures)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "Voron.Testing.Processes.dll"));
        foreach (var argument in new[] { CrashChild.Command, store, seed.ToString(System.Globalization.CultureInfo.InvariantCulture), run.ToString(System.Globalization.CultureInfo.InvariantCulture), "sql" })
        {
            start.ArgumentList.Add(argument);
        }

        using var child = Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start");
        var lines = new ConcurrentQueue<string>();
        using var ready = new ManualResetEventSlim();
        var reader = new Thread(() =>
        {
            while (child.StandardOutput.ReadLine() is { } line)
            {
                lines.Enqueue(line);
                if (line == "READY")
                {
                    ready.Set();
                }
            }
        });
        reader.Start();
        var errors = child.StandardError.ReadToEndAsync();
        if (random.Next(4) == 0)
        {
            Thread.Sleep(random.Next(300)); // maybe still starting or recovering
        }
        else if (ready.Wait(ReadyTimeout))
        {
            Thread.Sleep(random.Next(3) == 0 ? random.Next(5) : random.Next(500));
        }
        else
        {
            failures.Add($"{where}: the child did not open the store within {ReadyTimeout.TotalSeconds} s");
        }

        if (child.HasExited)
        {
            failures.Add($"{where}: the child exited by itself with code {child.ExitCode}: {errors.Result}");
        }

        child.Kill();
        child.WaitForExit();
        reader.Join();
        return lines;
    }

    private static void Verify(string store, Dictionary<(string Db, string Key), string> acknowledged, string where, List<string> failures)
    {
        if (!Directory.Exists(store))
        {
            return;
        }

        try
        {
            var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(store));
            try
            {
                using (var registration = VoronSqlite.Register(environment, "voron-kill-" + Guid.NewGuid().ToString("N")[..12]))
                {
                    foreach (var db in new[] { "kill0", "kill1" })
                    {
                        using var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = db, Vfs = registration.VfsName, Pooling = false, Mode = SqliteOpenMode.ReadWriteCreate }.ToString());
                        connection.Open();
                        if (connection.Scalar<long>("SELECT count(*) FROM sqlite_schema WHERE name = 'log'") == 0)
                        {
                            if (acknowledged.Keys.Any(k => k.Db == db))
                            {
                                failures.Add($"{where}: database {db} lost its table");
                            }

                            continue;
                        }

                        CheckDatabase(connection, db, acknowledged, where, failures);
                    }
                }

                environment.CheckIntegrity();
            }
            finally
            {
                environment.CloseWithoutFlush(); // leave the journal as the kill left it for the next child
            }
        }
        catch (Exception e) when (e is CorruptionException or FormatVersionException or IOException or InvalidOperationException or SqliteException)
        {
            failures.Add($"{where}: opening or checking the store after the kill failed: {e}");
        }
    }

    private static void CheckDatabase(SqliteConnection connection, string db, Dictionary<(string Db, string Key), string> acknowledged, string where, List<string> failures)
    {
        if (connection.IntegrityCheck() is var integrity && integrity != "ok")
        {
            failures.Add($"{where}: {db} integrity_check says {integrity}");
        }

        var values = new Dictionary<string, string>(StringComparer.Ordinal);
        using (var command = connection.CreateCommand())
        {
            command.CommandText = "SELECT key, value FROM log";
            using var reader = command.ExecuteReader();
            while (reader.Read())
            {
                values[reader.GetString(0)] = CrashChild.Hash((byte[])reader.GetValue(1));
            }
        }

        foreach (var ((ackDb, key), hash) in acknowledged)
        {
            if (ackDb == db && (!values.TryGetValue(key, out var found) || found != hash))
            {
                failures.Add($"{where}: acknowledged {db} key {key} is {(found == null ? "missing" : "there with another value")}");
                return;
            }
        }

        // No partial transaction: each writer's counter equals the number of its rows.
        foreach (var row in connection.Rows("SELECT writer, n FROM counters"))
        {
            var writer = (string)row[0]!;
            var rows = values.Keys.Count(k => k.StartsWith(writer + "/", StringComparison.Ordinal));
            if (rows != (long)row[1]!)
            {
                failures.Add($"{where}: {db} writer {writer} has {rows} rows but its counter says {row[1]}: a partial transaction");
                return;
            }
        }
    }

    [GeneratedRegex("^ACK (kill[01]) (r[0-9]{5}/w[0-9]/[0-9]{7}) ([0-9A-F]{16})$")]
    private static partial Regex AckLine();
}
