using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Experiments;

internal sealed partial class SqlExperiment
{
    private const string CreateTable = "CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY, k INTEGER, payload TEXT)";

    private static string Payload(int seed) => $"payload {seed:D10} " + new string((char)('a' + (seed % 26)), 80);

    private static void Preload(ISqlEngine engine, int rows)
    {
        using var connection = engine.Connect(0);
        SqliteCommands.Execute(connection, CreateTable);
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
    /// One round as a scenario: <paramref name="connections"/> copies, each a thread with its own
    /// connection and prepared command (its copy state, made before the clock starts), run
    /// transactions back to back for <paramref name="duration"/> (a closed loop: every connection
    /// completes at least one, however late a busy machine starts it); then the engine settles
    /// inside the measured span. <paramref name="writes"/> counts bytes and journal flushes over the
    /// measured span (from its start to the end of the settle).
    /// </summary>
    private static ScenarioProps RoundScenario(ISqlEngine engine, string workload, int connections, TimeSpan duration, int rows, WriteTally writes)
    {
        return Scenario.Create($"{engine.Name} {workload}", context =>
            {
                var copy = (SqlCopy)context.State!;
                return Step.Run(workload, context, () =>
                {
                    copy.RunTransaction(workload, rows);
                    return ValueTask.FromResult(Response.Ok());
                });
            })
            .WithCopyState(c => SqlCopy.Open(engine, workload, c)) // before the clock; disposed after the run
            .WithMeasurementStart(writes.Start)
            .WithSettle(() =>
            {
                engine.Settle();
                writes.Stop();
            })
            .WithLoadSimulations(Simulation.KeepConstant(connections, duration))
            .WithThreadPerCopy();
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

    /// <summary>One connection of a round: its connection, its prepared command, its random source, and its inserts' sequence.</summary>
    private sealed class SqlCopy : IDisposable
    {
        private readonly SqliteConnection _connection;
        private readonly SqliteCommand _command;
        private readonly Random _random;
        private readonly int _number;
        private int _sequence;

        private SqlCopy(SqliteConnection connection, SqliteCommand command, int number, string workload)
        {
            _connection = connection;
            _command = command;
            _number = number;
            _random = new Random(number * 7919 + workload.Length); // the same picks on every engine
        }

        /// <summary>Connection <paramref name="number"/> of a round: database 0, or one of <see cref="Databases"/> for multi-db inserts (its table created here, not timed).</summary>
        public static SqlCopy Open(ISqlEngine engine, string workload, int number)
        {
            var database = workload == MultiDbInsert ? 1 + (number % Databases) : 0;
            var connection = engine.Connect(database);
            try
            {
                if (workload == MultiDbInsert)
                {
                    SqliteCommands.Execute(connection, CreateTable);
                }

                return new SqlCopy(connection, Prepare(connection, workload), number, workload);
            }
            catch
            {
                connection.Dispose();
                throw;
            }
        }

        public void RunTransaction(string workload, int rows)
        {
            switch (workload)
            {
                case Insert or MultiDbInsert:
                    _command.Parameters[0].Value = _number;
                    _command.Parameters[1].Value = Payload(_sequence++);
                    _command.ExecuteNonQuery();
                    break;
                case Update:
                    _command.Parameters[0].Value = _random.Next(1, rows + 1);
                    _command.ExecuteNonQuery();
                    break;
                default:
                    _command.Parameters[0].Value = _random.Next(1, rows + 1);
                    using (var reader = _command.ExecuteReader())
                    {
                        while (reader.Read())
                        {
                            _ = reader.GetString(reader.FieldCount - 1);
                        }
                    }

                    break;
            }
        }

        public void Dispose()
        {
            _command.Dispose();
            _connection.Dispose();
        }
    }

    /// <summary>
    /// What a round wrote: bytes the process passed to write calls (/proc/self/io wchar) and, on
    /// Voron, the journal's bytes and write+fdatasync pairs, from <see cref="Start"/> (the end of
    /// the init) to <see cref="Stop"/> (the end of the settle).
    /// </summary>
    private sealed class WriteTally(ISqlEngine engine)
    {
        private long _bytesBefore;
        private long _journalBytesBefore;
        private long _flushesBefore;

        public long Bytes { get; private set; }

        public long JournalBytes { get; private set; }

        public long JournalFlushes { get; private set; }

        public bool HasJournal => engine.HasJournal;

        public void Start()
        {
            _bytesBefore = ProcessIo.BytesWritten();
            _journalBytesBefore = engine.JournalBytesWritten;
            _flushesBefore = engine.JournalWrites;
        }

        public void Stop()
        {
            Bytes = ProcessIo.BytesWritten() - _bytesBefore;
            JournalBytes = (engine.JournalBytesWritten) - _journalBytesBefore;
            JournalFlushes = (engine.JournalWrites) - _flushesBefore;
        }
    }
}
