using System.Diagnostics;
using System.Globalization;
using Microsoft.Data.Sqlite;
using Voron.Documents;
using Voron.SqliteVfs;

namespace Voron.Testing.Processes;

/// <summary>
/// <c>crash-child &lt;dir&gt; &lt;seed&gt; &lt;run&gt; sql-docs</c>: the cross-door variant of
/// <see cref="SqlCrashChild"/>, which Voron.Tests' DocsProcessKillTests kills with SIGKILL. It
/// opens (and so recovers) the store in <c>dir</c>, opens a <see cref="DocumentStore"/> over it,
/// binds it to the VFS "voron" with <c>UseDocuments</c>, creates the tables of
/// <see cref="DocsCrashWorkload"/> in databases <c>docs0</c> and <c>docs1</c>, prints
/// <c>READY</c>, then four writers (numbers <c>run * 4 + w</c>, writer w on database
/// <c>docs{w % 2}</c>) commit the workload's cross-door transactions until killed (or for 10
/// seconds), printing <c>ACK &lt;writer&gt; &lt;sequence&gt;</c> after every COMMIT that returned.
/// </summary>
internal static class DocsCrashChild
{
    /// <summary>Writers per run; their numbers are <c>run * Writers + w</c>, so each run has ids of its own.</summary>
    internal const int Writers = 4;

    private static readonly TimeSpan Lifetime = TimeSpan.FromSeconds(10);

    internal static int Run(string directory, int seed, int run, TextWriter output)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.JournalFileSize = 256 * 1024;
        options.FlushThresholdBytes = 256 * 1024;
        options.FlushInterval = TimeSpan.FromMilliseconds(20);
        using var environment = StorageEnvironment.Open(options);
        using var documents = DocumentStore.Open(environment);
        documents.EnsureIndexAsync(DocsCrashWorkload.Index).GetAwaiter().GetResult();
        using var registration = VoronSqlite.Register(environment, "voron").UseDocuments(documents);
        for (var db = 0; db < 2; db++)
        {
            using var setup = Open(registration, db);
            using var create = setup.CreateCommand();
            create.CommandText = DocsCrashWorkload.Schema + "; " + DocsCrashWorkload.CountSetup(db);
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
        var writers = Enumerable.Range(0, Writers).Select(w => new Thread(() =>
        {
            var writer = (run * Writers) + w;
            using var connection = Open(registration, w % 2);
            foreach (var operation in DocsCrashWorkload.Operations(seed, writer))
            {
                if (stopwatch.Elapsed >= Lifetime)
                {
                    return;
                }

                DocsCrashWorkload.Commit(connection, w % 2, operation);
                Emit(string.Create(CultureInfo.InvariantCulture, $"ACK {writer} {operation.Sequence}"));
            }
        })).ToList();
        writers.ForEach(t => t.Start());
        writers.ForEach(t => t.Join());
        return 0;
    }

    internal static SqliteConnection Open(VoronSqliteRegistration registration, int db)
    {
        var connection = new SqliteConnection(new SqliteConnectionStringBuilder
        {
            DataSource = "docs" + db,
            Vfs = registration.VfsName,
            Pooling = false,
        }.ToString());
        connection.Open();
        return connection;
    }
}
