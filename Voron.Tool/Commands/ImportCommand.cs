using System.CommandLine;
using System.Text;
using Voron.Documents;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron import &lt;store&gt; &lt;file.jsonl | -&gt;</c>: JSON Lines in the shape export writes, through
/// <see cref="DocumentStore.ImportAsync"/> (the bulk-insert path). The one command that creates a
/// store: when the directory does not exist (or is empty). Exits 3 when some lines were rejected
/// (the others are imported), so a script notices.
/// </summary>
internal static class ImportCommand
{
    /// <summary>How many rejected lines are printed (all are counted).</summary>
    internal const int RejectionsShown = 20;

    public static Command Create(ToolConsole console)
    {
        var store = new Argument<string>("store") { Description = "the store's directory (created when it does not exist)" };
        var source = new Argument<string>("file") { Description = "a JSON Lines file, or - for standard input" };
        var command = new Command("import", "store documents from JSON Lines with @metadata.@id and @metadata.@collection; creates the store if needed") { store, source };
        command.SetAction((result, cancellationToken) => RunAsync(console, result.GetValue(store)!, result.GetValue(source)!, cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(ToolConsole console, string store, string source, CancellationToken cancellationToken)
    {
        var input = OpenSource(console, source, out var length);
        await using var counted = new CountingReadStream(input);
        var directory = PrepareStore(store, out var created);
        using var environment = StorageEnvironment.Open(StoreAccess.Options(directory));
        await using var documents = DocumentStore.Open(environment);
        if (created)
        {
            await console.Error.WriteLineAsync($"created the store '{directory}'").ConfigureAwait(false);
        }

        long linesRead = 0;
        DocumentImportResult imported;
        try
        {
            imported = await ToolProgress.RunAsync(console, progress => documents.ImportAsync(counted, new DocumentImportOptions
            {
                Progress = new Forwarder<long>(lines =>
                {
                    linesRead = lines;
                    progress.Report(length is { } total
                        ? new ProgressStep("import", counted.BytesRead, total, $"bytes, {lines:N0} lines")
                        : new ProgressStep("import", lines, 0, "lines"));
                }),
                MaxRejectionsKept = RejectionsShown,
            }, cancellationToken)).ConfigureAwait(false);
        }
        catch (Exception e) when (e is UniqueConstraintException or InvalidOperationException)
        {
            // XP4: what only the store can refuse (an id stored in another collection, a unique
            // value taken) ends the import; the batches before it are stored.
            throw new ToolException(ExitCodes.Failed,
                $"The import stopped (at least {linesRead:N0} lines read): {e.Message} The documents of the batches before it are stored " +
                "(voron stat counts them); fix the line (or the store) and import the file again: a document imported twice is replaced, not duplicated.", e);
        }

        var rate = ResultPrinter.PerSecond(imported.Imported, imported.Duration);
        var error = console.Error;
        await error.WriteLineAsync(
            $"imported {ResultPrinter.Count(imported.Imported, "document")}, rejected {ResultPrinter.Count(imported.Rejected, "line")}, in {ResultPrinter.Seconds(imported.Duration)}" +
            (rate is { } r ? $" ({r:N0} documents/s)" : "")).ConfigureAwait(false);
        foreach (var rejection in imported.Rejections.Take(RejectionsShown))
        {
            await error.WriteLineAsync($"  line {rejection.Line}: {rejection.Reason}").ConfigureAwait(false);
        }

        var unshown = imported.Rejected - Math.Min(imported.Rejections.Count, RejectionsShown);
        if (unshown > 0)
        {
            await error.WriteLineAsync($"  ... and {ResultPrinter.Count(unshown, "more rejected line")}").ConfigureAwait(false);
        }

        return imported.Rejected == 0 ? ExitCodes.Ok : ExitCodes.Failed;
    }

    /// <summary>The input: the file (its length known), or standard input for "-".</summary>
    private static Stream OpenSource(ToolConsole console, string source, out long? length)
    {
        if (source == "-")
        {
            length = null;
            return ReferenceEquals(console.In, Console.In)
                ? Console.OpenStandardInput()
                : new MemoryStream(Encoding.UTF8.GetBytes(console.In.ReadToEnd())); // tests: In is a TextReader
        }

        var path = Path.GetFullPath(source);
        if (!File.Exists(path))
        {
            throw new ToolException(ExitCodes.Usage, $"No file '{source}' to import (give a JSON Lines file, or - to read standard input).");
        }

        var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 16, FileOptions.Asynchronous | FileOptions.SequentialScan);
        length = file.Length;
        return file;
    }

    /// <summary>The store's directory: created when missing, accepted when empty, otherwise it must hold a store.</summary>
    private static string PrepareStore(string store, out bool created)
    {
        var directory = Path.GetFullPath(store);
        created = !Directory.Exists(directory) || !Directory.EnumerateFileSystemEntries(directory).Any();
        if (!Directory.Exists(directory))
        {
            Directory.CreateDirectory(directory);
            return directory;
        }

        return created ? directory : StoreAccess.RequireStore(directory);
    }
}
