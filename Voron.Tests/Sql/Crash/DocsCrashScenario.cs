using Voron.Testing.Processes;

namespace Voron.Tests.Sql.Crash;

/// <summary>
/// Cross-door transactions on Vfs=voron over the crash simulator, and their oracle: a
/// <see cref="DocumentStore"/> over the environment bound with <c>UseDocuments</c>, a <c>voron_docs</c>
/// table <c>orders</c> and a SQL table <c>order_rows</c> in each database, and connection c
/// running writer c of <see cref="DocsCrashWorkload"/> (each SQL transaction inserts, updates or
/// deletes one row and its document, with the same total). After any crash
/// (<see cref="DocsCrashOracle"/>):
/// <list type="number">
/// <item>every row has its document and every document its row, with the same total: no half transaction;</item>
/// <item>each writer holds exactly the state after a prefix of its transactions that contains every acknowledged COMMIT and nothing unattempted;</item>
/// <item>each database's count row and document (every transaction increments both) equal the transactions its writers' ids hold;</item>
/// <item>SQL's <c>orders</c> reads what the document API reads;</item>
/// <item>PRAGMA integrity_check is ok, DocumentStore.CheckIntegrity and the store's CheckIntegrity pass, and a new cross-door commit succeeds.</item>
/// </list>
/// Concurrent runs add a document session saving one <c>Note</c> document at a time beside the SQL
/// writers (the module's commits and the sessions' share the store's transactions): its notes
/// hold exactly a prefix of its saves that contains every acknowledged one.
/// </summary>
internal sealed class DocsCrashScenario(string name, int databases, int connections, int transactions, bool concurrent)
{
    public string Name { get; } = name;

    public override string ToString() => Name;

    /// <summary>What one run attempted and acknowledged: per connection (writer), a count of transactions.</summary>
    public sealed class Outcome(int connections)
    {
        public int[] Attempted { get; } = new int[connections];

        public int[] Acknowledged { get; } = new int[connections];

        /// <summary>The session writer's saves, attempted and acknowledged (concurrent runs).</summary>
        public int NotesAttempted { get; set; }

        /// <inheritdoc cref="NotesAttempted"/>
        public int NotesAcknowledged { get; set; }

        /// <summary>The setup (index, both tables in every database) committed.</summary>
        public bool SetupDone { get; set; }

        /// <summary>Failures before the machine lost power: a transaction refused, a call that threw.</summary>
        public System.Collections.Concurrent.ConcurrentQueue<string> Errors { get; } = new();
    }

    /// <summary>Runs the workload on <paramref name="machine"/> until it ends or the machine loses power.</summary>
    public Outcome Run(CrashFileSystem machine, int seed)
    {
        var outcome = new Outcome(connections);
        StorageEnvironment environment;
        try
        {
            environment = StorageEnvironment.Open(CrashRun.Options(machine, null));
        }
        catch (Exception) when (machine.HasCrashed)
        {
            return outcome;
        }

        DocumentStore? documents = null;
        VoronSqliteRegistration? registration = null;
        try
        {
            documents = DocumentStore.Open(environment);
            documents.EnsureIndexAsync(DocsCrashWorkload.Index).GetAwaiter().GetResult();
            registration = VoronSqlite.Register(environment, "voron-docs-crash-" + Guid.NewGuid().ToString("N")[..12]).UseDocuments(documents);
            for (var d = 0; d < databases; d++)
            {
                using var connection = Open(registration, d);
                connection.Execute("BEGIN IMMEDIATE; " + DocsCrashWorkload.Schema + "; " + DocsCrashWorkload.CountSetup(d) + "; COMMIT;");
            }

            outcome.SetupDone = true;
            if (concurrent)
            {
                var threads = Enumerable.Range(0, connections).Select(c => new Thread(() => Work(registration, c, seed, outcome, machine)))
                    .Append(new Thread(() => SaveNotes(documents, outcome, machine)))
                    .ToList();
                threads.ForEach(t => t.Start());
                threads.ForEach(t => t.Join());
            }
            else
            {
                RoundRobin(registration, seed, outcome, machine);
            }
        }
        catch (Exception e) when (machine.HasCrashed || Record(outcome, "the run", e))
        {
            _ = e; // the power failed (during setup, or a flush): the oracle expects what was acknowledged
        }
        finally
        {
            registration?.Dispose();
            try
            {
                documents?.Dispose();
                environment.CloseWithoutFlush();
            }
            catch (Exception e) when (e is IOException or EnvironmentFailedException or ObjectDisposedException or AggregateException)
            {
                _ = e; // the machine is dead; the next open recovers
            }
        }

        return outcome;
    }

    private void Work(VoronSqliteRegistration registration, int conn, int seed, Outcome outcome, CrashFileSystem machine)
    {
        using var connection = Open(registration, conn % databases);
        foreach (var operation in DocsCrashWorkload.Operations(seed, conn).Take(transactions))
        {
            if (!Transaction(connection, conn % databases, operation, outcome, machine) || machine.HasCrashed)
            {
                return;
            }
        }
    }

    /// <summary>The session writer: saves Note/1, Note/2 ... one per session, as many as a SQL writer has transactions.</summary>
    private void SaveNotes(DocumentStore documents, Outcome outcome, CrashFileSystem machine)
    {
        for (var i = 1; i <= transactions && !machine.HasCrashed; i++)
        {
            outcome.NotesAttempted = i;
            try
            {
                using var session = documents.OpenSession();
                session.StoreRaw(DocsCrashOracle.Notes, DocsCrashOracle.NoteId(i), System.Text.Encoding.UTF8.GetBytes($"{{\"note\":{i}}}"));
                session.SaveChangesAsync().GetAwaiter().GetResult();
                outcome.NotesAcknowledged = i;
            }
            catch (Exception e) when (machine.HasCrashed || Record(outcome, $"saving note {i}", e))
            {
                _ = e;
                return;
            }
        }
    }

    /// <summary>
    /// One thread, connections taking turns transaction by transaction: the same calls in the same
    /// order every run, so crash point k is always the same call.
    /// </summary>
    private void RoundRobin(VoronSqliteRegistration registration, int seed, Outcome outcome, CrashFileSystem machine)
    {
        var open = Enumerable.Range(0, connections).Select(c => Open(registration, c % databases)).ToList();
        var writers = Enumerable.Range(0, connections).Select(c => DocsCrashWorkload.Operations(seed, c).GetEnumerator()).ToList();
        try
        {
            for (var seq = 0; seq < transactions; seq++)
            {
                for (var conn = 0; conn < connections; conn++)
                {
                    writers[conn].MoveNext();
                    if (!Transaction(open[conn], conn % databases, writers[conn].Current, outcome, machine) || machine.HasCrashed)
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
        finally
        {
            open.ForEach(c => c.Dispose());
            writers.ForEach(w => w.Dispose());
        }
    }

    /// <summary>One cross-door transaction; false once it failed (after a crash, every later call fails too).</summary>
    private static bool Transaction(SqliteConnection connection, int db, DocsCrashWorkload.Operation operation, Outcome outcome, CrashFileSystem machine)
    {
        outcome.Attempted[operation.Writer] = operation.Sequence + 1;
        try
        {
            DocsCrashWorkload.Commit(connection, db, operation);
            outcome.Acknowledged[operation.Writer] = operation.Sequence + 1;
            return true;
        }
        catch (Exception e) when (machine.HasCrashed || Record(outcome, operation.ToString(), e))
        {
            _ = e;
            return false;
        }
    }

    /// <summary>Records a failure that no power loss explains; returns true so the caller's filter catches it.</summary>
    private static bool Record(Outcome outcome, string what, Exception e)
    {
        outcome.Errors.Enqueue($"{what} failed before any power loss: {e.GetType().Name}: {e.Message}");
        return true;
    }

    /// <summary>Checks a recovered disk against the oracle; null when it passes, else why not.</summary>
    public string? Verify(CrashFileSystem disk, int seed, Outcome outcome)
    {
        if (!outcome.Errors.IsEmpty)
        {
            return outcome.Errors.First();
        }

        StorageEnvironment environment;
        try
        {
            environment = StorageEnvironment.Open(CrashRun.Options(disk, null));
        }
        catch (Exception e)
        {
            return $"the store did not open after the crash: {e.GetType().Name}: {e.Message}";
        }

        DocumentStore? documents = null;
        VoronSqliteRegistration? registration = null;
        var open = new List<SqliteConnection>();
        try
        {
            documents = DocumentStore.Open(environment);
            registration = VoronSqlite.Register(environment, "voron-docs-verify-" + Guid.NewGuid().ToString("N")[..12]).UseDocuments(documents);
            open.AddRange(Enumerable.Range(0, databases).Select(d => Open(registration, d)));
            var missing = open.FindIndex(c => c.Scalar<long>("SELECT count(*) FROM sqlite_schema WHERE name IN ('orders', 'order_rows')") != 2);
            if (missing >= 0)
            {
                if (outcome.SetupDone)
                {
                    return $"database {missing} lost its tables, though the setup committed";
                }

                // The power failed during the setup: no transaction ran. A database whose setup
                // committed holds its count row and document, 0; no other document exists.
                var docs = DocsCrashOracle.ReadDocuments(documents);
                for (var d = 0; d < databases; d++)
                {
                    var set = d != missing && open[d].Scalar<long>("SELECT count(*) FROM sqlite_schema WHERE name IN ('orders', 'order_rows')") == 2;
                    var row = set ? open[d].Rows($"SELECT total FROM order_rows WHERE id = '{DocsCrashWorkload.CountId(d)}'") : [];
                    var hasDoc = docs.Remove(DocsCrashWorkload.CountId(d), out var count);
                    if (set != hasDoc || (set && (row.Count != 1 || row[0][0] as long? != 0 || count != 0)))
                    {
                        return $"the setup of database {d} is half there: tables {(set ? "present" : "absent")}, count row {(row.Count == 1 ? row[0][0] : "absent")}, count document {(hasDoc ? count : "absent")}";
                    }
                }

                return docs.Count > 0
                    ? $"{docs.Count} documents exist though no transaction ran: {string.Join(", ", docs.Keys)}"
                    : DocsCrashOracle.CheckIntegrity(documents, open);
            }

            var found = new Dictionary<int, int>();
            var failure = DocsCrashOracle.Check(documents, open, seed, connections, w => (outcome.Acknowledged[w], outcome.Attempted[w]), found)
                ?? DocsCrashOracle.CheckNotes(documents, outcome.NotesAcknowledged, outcome.NotesAttempted)
                ?? DocsCrashOracle.CheckIntegrity(documents, open);
            if (failure != null)
            {
                return failure;
            }

            // The recovered store takes a new cross-door commit: writer 0's next transaction.
            var next = DocsCrashWorkload.Operations(seed, 0).ElementAt(found[0]);
            DocsCrashWorkload.Commit(open[0], 0, next);
            var present = DocsCrashOracle.ReadDocuments(documents).TryGetValue(next.Id, out var total);
            var done = next.Kind == DocsCrashWorkload.Kind.Delete ? !present : present && total == next.Total;
            return done ? null : $"the commit after recovery ({next}) did not reach the documents";
        }
        catch (Exception e)
        {
            return $"checking the recovered store failed: {e.GetType().Name}: {e.Message}";
        }
        finally
        {
            open.ForEach(c => c.Dispose());
            registration?.Dispose();
            documents?.Dispose();
            environment.CloseWithoutFlush();
        }
    }

    private static SqliteConnection Open(VoronSqliteRegistration registration, int db)
    {
        var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = "docs" + db, Vfs = registration.VfsName, Pooling = false }.ToString());
        connection.Open();
        return connection;
    }
}
