using Microsoft.Data.Sqlite;
using Voron.Documents;
using Voron.SqliteVfs;

namespace Voron.Tool;

/// <summary>
/// <c>voron check</c>'s SQLite stage: <c>PRAGMA integrity_check</c> on every database the store
/// holds, through a VFS registered under a name unique to this run (two checks in one process
/// never share one) and, when the store has documents, with <c>voron_docs</c> resolved, so a
/// database whose schema names a <c>voron_docs</c> table opens.
/// </summary>
internal static class CheckSqlite
{
    /// <summary>The most lines of a failed integrity_check the report repeats.</summary>
    private const int MaxLines = 10;

    private const int SqliteIoError = 10;
    private const int SqliteCorrupt = 11;
    private const int SqliteNotADatabase = 26;

    /// <summary>Checks every database, giving <paramref name="add"/> one stage each as it finishes.</summary>
    /// <param name="documentsFailed">True when the store has documents that could not be opened: a database with voron_docs tables cannot be opened then, and is reported skipped, not failed.</param>
    public static void Run(StorageEnvironment environment, DocumentStore? documents, bool documentsFailed, Action<CheckStage> add, CancellationToken cancellationToken)
    {
        var databases = InspectSqlite.List(environment).Where(file => file.IsDatabase || file.Damage != null).ToList();
        if (databases.Count == 0)
        {
            add(new CheckStage("sqlite", CheckStage.Skipped, "the store holds no SQLite database"));
            return;
        }

        var vfs = "voron-check-" + Guid.NewGuid().ToString("N");
        using var registration = VoronSqlite.Register(environment, vfs);
        if (documents != null)
        {
            registration.UseDocuments(documents);
        }

        foreach (var database in databases)
        {
            cancellationToken.ThrowIfCancellationRequested();
            add(CheckOne(vfs, database, documentsFailed));
        }
    }

    private static CheckStage CheckOne(string vfs, InspectSqlite.PageFileInfo database, bool documentsFailed)
    {
        var stage = $"sqlite {database.Name}";
        if (database.Damage is { } damage)
        {
            return new CheckStage(stage, CheckStage.Damaged, $"its first block cannot be read: {damage.Reason}", damage.File, damage.Offset);
        }

        try
        {
            var builder = new SqliteConnectionStringBuilder { DataSource = database.Name, Vfs = vfs, Mode = SqliteOpenMode.ReadWrite, Pooling = false };
            using var connection = new SqliteConnection(builder.ConnectionString);
            connection.Open();
            using var command = connection.CreateCommand();
            command.CommandText = "PRAGMA integrity_check;";
            var lines = new List<string>();
            using (var reader = command.ExecuteReader())
            {
                while (reader.Read())
                {
                    lines.Add(reader.GetString(0));
                }
            }

            if (lines is ["ok"])
            {
                return new CheckStage(stage, CheckStage.Ok, $"integrity_check ok, {InspectOutput.Count(database.Pages)} pages of {InspectOutput.Bytes(database.SqlitePageSize)}");
            }

            var shown = string.Join("; ", lines.Take(MaxLines)) + (lines.Count > MaxLines ? $"; ... ({lines.Count} lines)" : "");
            return new CheckStage(stage, CheckStage.Damaged, $"integrity_check: {shown}", database.Name);
        }
        catch (SqliteException e) when (e.SqliteErrorCode is SqliteIoError or SqliteCorrupt or SqliteNotADatabase)
        {
            // The VFS turns a store page that fails its checksum into an I/O error; SQLite reports
            // a malformed database as SQLITE_CORRUPT or SQLITE_NOTADB: all are damage to this database.
            return new CheckStage(stage, CheckStage.Damaged, $"SQLite error {e.SqliteErrorCode}: {e.Message}", database.Name);
        }
        catch (SqliteException) when (documentsFailed)
        {
            return new CheckStage(stage, CheckStage.Skipped, "its schema needs the documents (voron_docs), which could not be opened (above)", database.Name);
        }
        catch (SqliteException e)
        {
            // Anything else (busy, out of memory, a voron_docs table whose documents did not open)
            // stops the check of this database without saying it is damaged.
            return new CheckStage(stage, CheckStage.Failed, $"SQLite error {e.SqliteErrorCode}: {e.Message}", database.Name);
        }
    }
}
