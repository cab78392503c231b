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

    public static IReadOnlyList<CheckStage> Run(StorageEnvironment environment, DocumentStore? documents, CancellationToken cancellationToken)
    {
        var databases = InspectSqlite.List(environment).Where(file => file.IsDatabase || file.Damage != null).ToList();
        if (databases.Count == 0)
        {
            return [new CheckStage("sqlite", CheckStage.Skipped, "the store holds no SQLite database")];
        }

        var vfs = "voron-check-" + Guid.NewGuid().ToString("N");
        using var registration = VoronSqlite.Register(environment, vfs);
        if (documents != null)
        {
            registration.UseDocuments(documents);
        }

        var stages = new List<CheckStage>();
        foreach (var database in databases)
        {
            cancellationToken.ThrowIfCancellationRequested();
            stages.Add(CheckOne(vfs, database));
        }

        return stages;
    }

    private static CheckStage CheckOne(string vfs, InspectSqlite.PageFileInfo database)
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
        catch (SqliteException e)
        {
            // The VFS turns a store page that fails its checksum into an I/O error; SQLite reports
            // a malformed database as SQLITE_CORRUPT: both are damage to this database.
            return new CheckStage(stage, CheckStage.Damaged, $"SQLite error {e.SqliteErrorCode}: {e.Message}", database.Name);
        }
    }
}
