using System.Diagnostics;
using Microsoft.Data.Sqlite;
using Voron.LoadTests.Engines.Sql;
using Voron.LoadTests.Measurement;

namespace Voron.LoadTests.Experiments;

internal sealed partial class SqlExperiment
{
    private const string CreateTable = "CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY, k INTEGER, payload TEXT)";

    private static string Payload(int seed) => $"payload {seed:D10} " + new string((char)('a' + (seed % 26)), 80);

    private static void Preload(SqlEngine engine, int rows)
    {
        using var connection = engine.Connect(0);
        SqlEngine.Execute(connection, CreateTable);
        using var transaction = connection.BeginTransaction();
        using var insert = connection.CreateCommand();
        insert.Transaction = transaction;
        insert.CommandText = "INSERT INTO items(k, payload) VALUES ($k, $p)";
        var k = insert.Parameters.Add("$k", SqliteType.Integer);
        var p = insert.Parameters.Add("$p", SqliteType.Text);
        for (var i = 0; i < rows; i++)
        {
            k.Value = i;
            p.Value = Payload(i);
            insert.ExecuteNonQuery();
        }

        transaction.Commit();
        engine.Settle();
    }

    /// <summary>
    /// One round: <paramref name="connections"/> threads, each with its own connection and prepared
    /// command, run transactions back to back for <paramref name="duration"/>; then the engine
    /// settles. Time, bytes and journal flushes are counted from the start to the end of settling.
    /// </summary>
    private static void RunRound(SqlEngine engine, string workload, int connections, TimeSpan duration, int rows, SqlTotals totals)
    {
        var samples = new LatencySample[connections];
        using var start = new Barrier(connections + 1);
        var watch = new Stopwatch();
        var threads = Enumerable.Range(0, connections).Select(c => new Thread(() =>
        {
            var sample = samples[c] = new LatencySample();
            var database = workload == MultiDbInsert ? 1 + (c % Databases) : 0;
            using var connection = engine.Connect(database);
            if (workload == MultiDbInsert)
            {
                SqlEngine.Execute(connection, CreateTable);
            }

            using var command = Prepare(connection, workload);
            var random = new Random(c * 7919 + workload.Length);
            start.SignalAndWait();
            var sequence = 0;
            do // at least one transaction per connection, however late a busy machine starts it
            {
                var begin = Stopwatch.GetTimestamp();
                RunTransaction(command, workload, random, rows, c, sequence++);
                sample.AddTicks(Stopwatch.GetTimestamp() - begin);
            }
            while (watch.Elapsed < duration);
        })).ToList();
        threads.ForEach(t => t.Start());

        var bytesBefore = ProcessIo.BytesWritten();
        var journalBytesBefore = engine.Environment?.JournalBytesWritten ?? 0;
        var flushesBefore = engine.Environment?.JournalWrites ?? 0;
        watch.Start();
        start.SignalAndWait();
        threads.ForEach(t => t.Join());
        engine.Settle();
        watch.Stop();

        foreach (var sample in samples)
        {
            totals.Latency.AddAll(sample);
        }

        totals.Seconds += watch.Elapsed.TotalSeconds;
        totals.Bytes += ProcessIo.BytesWritten() - bytesBefore;
        if (engine.Environment is { } environment)
        {
            totals.HasJournal = true;
            totals.JournalBytes += environment.JournalBytesWritten - journalBytesBefore;
            totals.JournalFlushes += environment.JournalWrites - flushesBefore;
        }
    }

    private static SqliteCommand Prepare(SqliteConnection connection, string workload)
    {
        var command = connection.CreateCommand();
        command.CommandText = workload switch
        {
            Insert or MultiDbInsert => "INSERT INTO items(k, payload) VALUES ($a, $p)",
            Update => "UPDATE items SET k = k + 1 WHERE id = $a",
            PointSelect => "SELECT payload FROM items WHERE id = $a",
            RangeSelect => "SELECT id, k, payload FROM items WHERE id >= $a ORDER BY id LIMIT 100",
            _ => throw new ArgumentException($"unknown workload '{workload}'", nameof(workload)),
        };
        command.Parameters.Add("$a", SqliteType.Integer);
        if (workload is Insert or MultiDbInsert)
        {
            command.Parameters.Add("$p", SqliteType.Text);
        }

        command.Prepare();
        return command;
    }

    private static void RunTransaction(SqliteCommand command, string workload, Random random, int rows, int connection, int sequence)
    {
        switch (workload)
        {
            case Insert or MultiDbInsert:
                command.Parameters[0].Value = connection;
                command.Parameters[1].Value = Payload(sequence);
                command.ExecuteNonQuery();
                break;
            case Update:
                command.Parameters[0].Value = random.Next(1, rows + 1);
                command.ExecuteNonQuery();
                break;
            default:
                command.Parameters[0].Value = random.Next(1, rows + 1);
                using (var reader = command.ExecuteReader())
                {
                    while (reader.Read())
                    {
                        _ = reader.GetString(reader.FieldCount - 1);
                    }
                }

                break;
        }
    }
}
