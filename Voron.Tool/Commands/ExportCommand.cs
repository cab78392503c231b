using System.CommandLine;
using System.Text;
using Voron.Documents;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron export &lt;store&gt; [--collection C] [--output FILE]</c>: the documents of one snapshot as
/// JSON Lines (<see cref="DocumentStore.ExportAsync"/>) on standard output or into a file; the
/// summary on standard error, so the output is only the documents. With <c>--to postgresql://...</c>
/// the collections go into PostgreSQL instead (<see cref="ExportToPostgreSql"/>).
/// </summary>
internal static class ExportCommand
{
    public static Command Create(ToolConsole console)
    {
        var store = new Argument<string>("store") { Description = "the store's directory" };
        var collection = new Option<string?>("--collection", "-c") { Description = "export only this collection", HelpName = "C" };
        var output = new Option<string?>("--output", "-o") { Description = "write to this file instead of standard output (an existing file is replaced once the export is complete)", HelpName = "FILE" };
        var to = new Option<string?>("--to") { Description = "write the collections into PostgreSQL instead (postgresql://user:password@host:port/database, or Host=...;Database=...), in tables Marten reads; the SQLite databases go out as .sqlite files", HelpName = "URL" };
        var schema = new Option<string>("--schema") { Description = "with --to: the PostgreSQL schema the tables go to", DefaultValueFactory = _ => "public", HelpName = "S" };
        var sqliteDirectory = new Option<string?>("--sqlite-dir") { Description = "with --to: where the store's SQLite databases are written as .sqlite files (default: <store>-sqlite beside the store)", HelpName = "DIR" };
        var command = new Command("export", "write every document (or one collection's) as JSON Lines with @metadata, or into PostgreSQL with --to") { store, collection, output, to, schema, sqliteDirectory };
        command.SetAction((result, cancellationToken) => result.GetValue(to) is { } target
            ? result.GetValue(output) is not null
                ? throw new ToolException(ExitCodes.Usage, "--output and --to cannot go together: --output writes JSON Lines to a file, --to writes into PostgreSQL.")
                : ExportToPostgreSql.RunAsync(console, result.GetValue(store)!, target, result.GetValue(schema)!, result.GetValue(collection), result.GetValue(sqliteDirectory), cancellationToken)
            : RunAsync(console, result.GetValue(store)!, result.GetValue(collection), result.GetValue(output), cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(ToolConsole console, string store, string? collection, string? output, CancellationToken cancellationToken)
    {
        using var environment = StoreAccess.OpenEnvironment(store);
        await using var documents = StoreAccess.OpenDocumentsIfAny(environment) ??
            throw new ToolException(ExitCodes.Usage, $"The store '{store}' holds no documents (no {StoreAccess.DocumentsTree} tree): there is nothing to export. voron stat shows what it holds.");
        if (collection != null)
        {
            await RequireCollectionAsync(documents, collection, cancellationToken).ConfigureAwait(false);
        }

        DocumentExportResult exported;
        if (output != null)
        {
            // Written beside the target and renamed over it once complete: a failed or cancelled
            // export never leaves a truncated file where an earlier export was.
            var target = Path.GetFullPath(output);
            var partial = target + ".partial";
            try
            {
                var file = new FileStream(partial, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 16, FileOptions.Asynchronous);
                await using (file.ConfigureAwait(false))
                {
                    exported = await ExportAsync(console, documents, file, collection, cancellationToken).ConfigureAwait(false);
                    file.Flush(flushToDisk: true);
                }

                File.Move(partial, target, overwrite: true);
            }
            catch
            {
                File.Delete(partial);
                throw;
            }
        }
        else if (console.OpenRawOut is { } openRawOut)
        {
            // Bytes straight to standard output: no decoding to text and back.
            await console.Out.FlushAsync(cancellationToken).ConfigureAwait(false);
            var raw = new BufferedStream(openRawOut(), 1 << 16);
            await using (raw.ConfigureAwait(false))
            {
                exported = await ExportAsync(console, documents, raw, collection, cancellationToken).ConfigureAwait(false);
            }
        }
        else
        {
            // Standard output is a TextWriter only (tests): buffer, then write the text.
            using var buffer = new MemoryStream();
            exported = await ExportAsync(console, documents, buffer, collection, cancellationToken).ConfigureAwait(false);
            await console.Out.WriteAsync(Encoding.UTF8.GetString(buffer.GetBuffer(), 0, (int)buffer.Length)).ConfigureAwait(false);
            await console.Out.FlushAsync(cancellationToken).ConfigureAwait(false);
        }

        var rate = ResultPrinter.PerSecond(exported.Documents, exported.Duration);
        var bytesRate = ResultPrinter.PerSecond(exported.Bytes, exported.Duration);
        await console.Error.WriteLineAsync(
            $"exported {ResultPrinter.Count(exported.Documents, "document")}, {ResultPrinter.Bytes(exported.Bytes)}, in {ResultPrinter.Seconds(exported.Duration)}" +
            (rate is { } r && bytesRate is { } b ? $" ({r:N0} documents/s, {ResultPrinter.Human(b)}/s)" : "") +
            $"; snapshot: transaction {exported.TransactionId}" + (output != null ? $"; file: {Path.GetFullPath(output)}" : "")).ConfigureAwait(false);
        return ExitCodes.Ok;
    }

    private static Task<DocumentExportResult> ExportAsync(ToolConsole console, DocumentStore documents, Stream destination, string? collection,
        CancellationToken cancellationToken) =>
        ToolProgress.RunAsync(console, progress => documents.ExportAsync(destination, new DocumentExportOptions
        {
            Collection = collection,
            Progress = new Forwarder<long>(written => progress.Report(new ProgressStep("export", written, 0, "documents"))),
        }, cancellationToken));

    /// <summary>A usage error listing the collections there are, unless <paramref name="collection"/> holds a document.</summary>
    private static async Task RequireCollectionAsync(DocumentStore documents, string collection, CancellationToken cancellationToken)
    {
        await using (var session = documents.OpenSession())
        {
            try
            {
                if (await session.QueryRaw(collection).AllowScan().Take(1).AnyAsync(cancellationToken).ConfigureAwait(false))
                {
                    return; // the cheap answer; the listing below scans the store
                }
            }
            catch (ArgumentException e)
            {
                throw new ToolException(ExitCodes.Usage, $"'{collection}' is not a collection name: {e.Message}", e);
            }
        }

        var names = documents.GetStatistics().Collections.Select(c => c.Name).ToList();
        throw new ToolException(ExitCodes.Usage,
            $"The store has no collection '{collection}' (names are case-sensitive). Its collections: " +
            (names.Count == 0 ? "none." : string.Join(", ", names) + "."));
    }
}
