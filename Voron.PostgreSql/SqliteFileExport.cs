using Microsoft.Data.Sqlite;
using Voron.SqliteVfs;

namespace Voron.PostgreSql;

/// <summary>
/// The SQLite databases kept in a store (Voron.SqliteVfs), each written out as a plain SQLite
/// file with <c>VACUUM INTO</c>: what pgloader (or any SQLite tool) reads to bring them into
/// PostgreSQL (docs/postgresql.md has the recipe). A <c>voron_docs</c> table goes as its
/// definition only: its documents are the store's, exported by <see cref="PostgreSqlExport"/>.
/// </summary>
public static class SqliteFileExport
{
    private static ReadOnlySpan<byte> HeaderString => "SQLite format 3\0"u8;

    /// <summary>The names of the store's page files that are SQLite databases (they start with SQLite's header), in name order.</summary>
    public static IReadOnlyList<string> ListDatabases(StorageEnvironment environment)
    {
        ArgumentNullException.ThrowIfNull(environment);
        using var read = environment.BeginRead();
        var databases = new List<string>();
        Span<byte> header = stackalloc byte[16];
        foreach (var name in read.GetPageFileNames().Order(StringComparer.Ordinal))
        {
            var file = read.OpenPageFile(name);
            if (file is not null && file.Length >= header.Length && file.Read(0, header) == header.Length && header.SequenceEqual(HeaderString))
            {
                databases.Add(name);
            }
        }

        return databases;
    }

    /// <summary>
    /// Writes every SQLite database of <paramref name="environment"/> into <paramref name="directory"/>
    /// (created when missing) as <c>&lt;database&gt;.sqlite</c>, replacing a file of that name only
    /// once the new one is complete. Each is one consistent snapshot of its database.
    /// </summary>
    public static IReadOnlyList<SqliteFileExportResult> ExportAll(StorageEnvironment environment, string directory, IProgress<SqliteFileExportResult>? progress = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(environment);
        ArgumentNullException.ThrowIfNull(directory);
        var databases = ListDatabases(environment);
        var results = new List<SqliteFileExportResult>();
        if (databases.Count == 0)
        {
            return results;
        }

        var target = Path.GetFullPath(directory);
        Directory.CreateDirectory(target);
        using var registration = VoronSqlite.Register(environment, "voron-sqlite-export-" + Guid.NewGuid().ToString("N"));
        foreach (var database in databases)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var path = Path.Combine(target, FileName(database));
            var partial = path + ".partial";
            File.Delete(partial);
            try
            {
                using (var connection = registration.OpenConnection(database))
                {
                    using var command = connection.CreateCommand();
                    command.CommandText = "VACUUM INTO $path";
                    command.Parameters.AddWithValue("$path", partial);
                    command.ExecuteNonQuery();
                }

                File.Move(partial, path, overwrite: true);
            }
            catch (SqliteException e)
            {
                File.Delete(partial);
                throw new IOException($"Writing the SQLite database '{database}' to {path} failed: {e.Message}", e);
            }
            catch
            {
                File.Delete(partial);
                throw;
            }

            var result = new SqliteFileExportResult(database, path, new FileInfo(path).Length);
            results.Add(result);
            progress?.Report(result);
        }

        return results;
    }

    /// <summary>A file name for a database name: characters a file name cannot hold become _.</summary>
    internal static string FileName(string database)
    {
        var invalid = Path.GetInvalidFileNameChars();
        var chars = database.Select(c => invalid.Contains(c) || c is '/' or '\\' or ':' ? '_' : c).ToArray();
        var name = new string(chars);
        return (name is "." or ".." ? "_" + name : name) + ".sqlite";
    }
}

/// <summary>One database written by <see cref="SqliteFileExport.ExportAll"/>.</summary>
/// <param name="Database">Its name in the store.</param>
/// <param name="Path">The file written.</param>
/// <param name="Bytes">The file's length.</param>
public sealed record SqliteFileExportResult(string Database, string Path, long Bytes);
