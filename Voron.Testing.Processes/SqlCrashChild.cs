using System.Diagnostics;
using System.Globalization;
using Microsoft.Data.Sqlite;
using Voron.SqliteVfs;

namespace Voron.Testing.Processes;

/// <summary>
/// <c>crash-child &lt;dir&gt; &lt;seed&gt; &lt;run&gt; sql</c>: the SQL variant of <see cref="CrashChild"/>, which
/// Voron.Tests' SqlProcessKillTests kills with SIGKILL. It opens (and so recovers) the store in
/// <c>dir</c>, registers it as the SQLite VFS "voron", prints <c>READY</c>, then four connections
/// (two per database, databases <c>kill0</c> and <c>kill1</c>) commit single-row transactions
/// through Microsoft.Data.Sqlite until killed (or for 10 seconds), printing
/// <c>ACK &lt;db&gt; &lt;key&gt; &lt;value hash&gt;</c> after every COMMIT that returned. Each transaction
/// also bumps a per-writer counter row, so a partial transaction would show.
/// </summary>
internal static class SqlCrashChild
{
    private static readonly TimeSpan Lifetime = TimeSpan.FromSeconds(10);

    internal static int Run(string directory, int seed, int run, TextWriter output)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.JournalFileSize = 256 * 1024;
        options.FlushThresholdBytes = 256 * 1024;
        options.FlushInterval = TimeSpan.FromMilliseconds(20);
        using var environment = StorageEnvironment.Open(options);
        using var registration = VoronSqlite.Register(environment, "voron");
        for (var db = 0; db < 2; db++)
        {
            using var setup = Open(registration, db);
            using var create = setup.CreateCommand();
            create.CommandText = "CREATE TABLE IF NOT EXISTS log(key TEXT PRIMARY KEY, value BLOB); CREATE TABLE IF NOT EXISTS counters(writer TEXT PRIMARY KEY, n INTEGER)";
            create.ExecuteNonQuery();
        }

        var gate = new object();
        void Emit(string line)
        {
            lock (gate)
            {
                output.WriteLine(line);
                output.Flush();
            }
        }

        Emit("READY");
        var stopwatch = Stopwatch.StartNew();
        var writers = Enumerable.Range(0, 4).Select(w => new Thread(() =>
        {
            var db = w % 2;
            var writer = string.Create(CultureInfo.InvariantCulture, $"r{run:D5}/w{w}");
            using var connection = Open(registration, db);
            for (var i = 0; stopwatch.Elapsed < Lifetime; i++)
            {
                var key = string.Create(CultureInfo.InvariantCulture, $"{writer}/{i:D7}");
                var value = CrashChild.Value(seed, key);
                using (var transaction = connection.BeginTransaction())
                using (var insert = connection.CreateCommand())
                {
                    insert.Transaction = transaction;
                    insert.CommandText = "INSERT INTO log VALUES ($k, $v); INSERT OR REPLACE INTO counters VALUES ($w, $n)";
                    insert.Parameters.AddWithValue("$k", key);
                    insert.Parameters.AddWithValue("$v", value);
                    insert.Parameters.AddWithValue("$w", writer);
                    insert.Parameters.AddWithValue("$n", i + 1);
                    insert.ExecuteNonQuery();
                    transaction.Commit();
                }

                Emit(string.Create(CultureInfo.InvariantCulture, $"ACK kill{db} {key} {CrashChild.Hash(value)}"));
            }
        })).ToList();
        writers.ForEach(t => t.Start());
        writers.ForEach(t => t.Join());
        return 0;
    }

    private static SqliteConnection Open(VoronSqliteRegistration registration, int db)
    {
        var connection = new SqliteConnection(new SqliteConnectionStringBuilder
        {
            DataSource = "kill" + db,
            Vfs = registration.VfsName,
            Pooling = false,
        }.ToString());
        connection.Open();
        return connection;
    }
}
