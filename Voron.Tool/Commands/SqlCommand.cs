using System.CommandLine;
using Microsoft.Data.Sqlite;
using SQLitePCL;
using Voron.SqliteVfs;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron sql &lt;store&gt; &lt;database&gt; ["statement"] [--json] [--create]</c>: SQL on a database of
/// the store through Voron's SQLite VFS (<see cref="VoronSqlite.Register"/>), with <c>voron_docs</c>
/// tables when the store holds documents. With no statement, one statement per line of standard
/// input, each run and printed, stopping at the first error. A database that does not exist is
/// refused (exit 2, listing the databases there are) unless <c>--create</c>: a typo must not
/// make an empty database.
/// </summary>
internal static class SqlCommand
{
    public static Command Create(ToolConsole console)
    {
        var store = new Argument<string>("store") { Description = "the store's directory" };
        var database = new Argument<string>("database") { Description = "the SQLite database in the store (a page file of the store)" };
        var statement = new Argument<string?>("statement") { Description = "the SQL to run; none: one statement per line of standard input", Arity = ArgumentArity.ZeroOrOne };
        var json = new Option<bool>("--json") { Description = "print each result as a JSON array of row objects, one result a line" };
        var create = new Option<bool>("--create") { Description = "allow a database that does not exist yet (SQLite creates it on the first write)" };
        var command = new Command("sql", "run SQL on a SQLite database in the store, voron_docs tables included") { store, database, statement, json, create };
        command.SetAction((result, cancellationToken) => RunAsync(console, result.GetValue(store)!, result.GetValue(database)!, result.GetValue(statement),
            result.GetValue(json), result.GetValue(create), cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(ToolConsole console, string store, string database, string? statement, bool json, bool create,
        CancellationToken cancellationToken)
    {
        using var environment = StoreAccess.OpenEnvironment(store);
        RequireDatabase(environment, database, create);
        await using var documents = StoreAccess.OpenDocumentsIfAny(environment);
        using var registration = VoronSqlite.Register(environment, "voron-tool-" + Guid.NewGuid().ToString("N")); // unique: tests run commands in parallel
        if (documents != null)
        {
            registration.UseDocuments(documents);
        }

        var connectionString = new SqliteConnectionStringBuilder { DataSource = database, Vfs = registration.VfsName, Pooling = false }.ToString();
        await using var connection = new SqliteConnection(connectionString);
        var printer = new SqlResultPrinter(console, json);
        try
        {
            await connection.OpenAsync(cancellationToken).ConfigureAwait(false);
            if (statement != null)
            {
                await RunStatementAsync(connection, statement, printer, cancellationToken).ConfigureAwait(false);
                return ExitCodes.Ok;
            }

            var number = 0;
            while (await console.In.ReadLineAsync(cancellationToken).ConfigureAwait(false) is { } line)
            {
                number++;
                if (string.IsNullOrWhiteSpace(line))
                {
                    continue;
                }

                try
                {
                    await RunStatementAsync(connection, line, printer, cancellationToken).ConfigureAwait(false);
                }
                catch (SqliteException e)
                {
                    throw new ToolException(ExitCodes.Failed, $"SQL error on line {number} of standard input: {e.Message} (the statements before it ran; the rest did not)", e);
                }
            }

            return ExitCodes.Ok;
        }
        catch (SqliteException e)
        {
            throw new ToolException(ExitCodes.Failed, $"SQL error: {e.Message}", e);
        }
    }

    private static async Task RunStatementAsync(SqliteConnection connection, string sql, SqlResultPrinter printer, CancellationToken cancellationToken)
    {
        // Rows changed: the difference of sqlite3_total_changes, not the reader's RecordsAffected,
        // which after a statement that changes no rows (CREATE, VACUUM) repeats the previous count.
        var changesBefore = raw.sqlite3_total_changes(connection.Handle);
        await using var command = connection.CreateCommand();
        command.CommandText = sql;
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        var printed = false;
        do
        {
            if (reader.FieldCount > 0)
            {
                await printer.PrintRowsAsync(reader, cancellationToken).ConfigureAwait(false);
                printed = true;
            }
        }
        while (await reader.NextResultAsync(cancellationToken).ConfigureAwait(false));

        if (!printed)
        {
            await printer.PrintChangesAsync(raw.sqlite3_total_changes(connection.Handle) - changesBefore).ConfigureAwait(false);
        }
    }

    /// <summary>A usage error, listing the databases there are, unless <paramref name="database"/> exists or <paramref name="create"/>.</summary>
    private static void RequireDatabase(StorageEnvironment environment, string database, bool create)
    {
        IReadOnlyList<string> names;
        using (var read = environment.BeginRead())
        {
            names = read.GetPageFileNames();
        }

        if (create || names.Contains(database, StringComparer.Ordinal))
        {
            return;
        }

        throw new ToolException(ExitCodes.Usage,
            $"The store has no database '{database}' (names are case-sensitive). Its databases: " +
            (names.Count == 0 ? "none." : string.Join(", ", names) + ".") + " Give --create to make a new one.");
    }
}
