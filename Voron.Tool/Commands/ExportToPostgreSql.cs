using Voron.PostgreSql;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron export &lt;store&gt; --to postgresql://...</c>: every collection into PostgreSQL
/// (<see cref="PostgreSqlExport"/>: Marten's table layout, binary COPY, resumable, counts checked),
/// then every SQLite database of the store as a plain .sqlite file (<see cref="SqliteFileExport"/>)
/// with the pgloader command that brings it over (docs/postgresql.md).
/// </summary>
internal static class ExportToPostgreSql
{
    public static async Task<int> RunAsync(ToolConsole console, string store, string to, string schema, string? collection, string? sqliteDirectory,
        CancellationToken cancellationToken)
    {
        string npgsql;
        try
        {
            npgsql = PostgreSql.Export.ConnectionStrings.ToNpgsql(to);
        }
        catch (ArgumentException e)
        {
            throw new ToolException(ExitCodes.Usage, e.Message, e);
        }

        var storePath = StoreAccess.RequireStore(store);
        using var environment = StoreAccess.OpenEnvironment(store);
        var databases = SqliteFileExport.ListDatabases(environment);
        await using var documents = StoreAccess.OpenDocumentsIfAny(environment);
        if (documents is null && databases.Count == 0)
        {
            throw new ToolException(ExitCodes.Usage, $"The store '{store}' holds no documents and no SQLite databases: there is nothing to export. voron stat shows what it holds.");
        }

        if (documents is not null)
        {
            PostgreSqlExportResult result;
            try
            {
                result = await ToolProgress.RunAsync(console, progress => PostgreSqlExport.ExportAsync(documents, npgsql, new PostgreSqlExportOptions
                {
                    Schema = schema,
                    Collection = collection,
                    Progress = new Forwarder<PostgreSqlExportProgress>(p =>
                        progress.Report(new ProgressStep($"{p.Collection} -> {p.Table}", p.Done, p.Total, "documents"))),
                }, cancellationToken)).ConfigureAwait(false);
            }
            catch (ArgumentException e)
            {
                throw new ToolException(ExitCodes.Usage, e.Message, e);
            }
            catch (PostgreSqlExportException e)
            {
                throw new ToolException(ExitCodes.Failed, e.Message, e);
            }

            foreach (var exported in result.Collections)
            {
                await console.Error.WriteLineAsync(
                    $"{exported.Collection} -> {exported.Table}: {exported.Rows:N0} rows, counts checked ({exported.Written:N0} written now" +
                    (exported.Resumed > 0 ? $", {exported.Resumed:N0} already there from an earlier run)" : ")")).ConfigureAwait(false);
            }

            var rate = ResultPrinter.PerSecond(result.Written, result.Duration);
            await console.Error.WriteLineAsync(
                $"PostgreSQL holds {ResultPrinter.Count(result.Rows, "document")} of {result.Collections.Count} collection(s); this run wrote {result.Written:N0} in {ResultPrinter.Seconds(result.Duration)}" +
                (rate is { } r && result.Written > 0 ? $" ({r:N0} documents/s)" : "")).ConfigureAwait(false);
        }

        else if (collection is not null)
        {
            throw new ToolException(ExitCodes.Usage, $"The store '{store}' holds no documents, so no collection '{collection}'.");
        }

        if (databases.Count > 0 && collection is null)
        {
            var directory = Path.GetFullPath(sqliteDirectory ?? storePath.TrimEnd(Path.DirectorySeparatorChar) + "-sqlite");
            var files = SqliteFileExport.ExportAll(environment, directory, cancellationToken: cancellationToken);
            var redacted = PostgreSql.Export.ConnectionStrings.Redact(to);
            foreach (var file in files)
            {
                await console.Error.WriteLineAsync(
                    $"SQLite database '{file.Database}' -> {file.Path} ({ResultPrinter.Bytes(file.Bytes)}); to load it into PostgreSQL: " +
                    $"pgloader sqlite://{file.Path} '{(to.Contains("://", StringComparison.Ordinal) ? redacted : "postgresql://user:password@host:port/database")}'").ConfigureAwait(false);
            }
        }

        return ExitCodes.Ok;
    }
}
