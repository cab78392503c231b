using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron compact &lt;store&gt;</c>: <see cref="StorageEnvironment.CompactAsync"/>, offline (it takes
/// the store's lock), then the data file's size before and after.
/// </summary>
internal static class CompactCommand
{
    public static Command Create(ToolConsole console)
    {
        var store = new Argument<string>("store") { Description = "the store's directory (closed: compaction takes its lock)" };
        var archive = new Option<string?>("--journal-archive")
        {
            Description = "the store's journal archive (StorageEnvironmentOptions.JournalArchiveDirectory): the swap archives the store's last journal " +
                "files there and notes the compaction, so backups taken before it restore up to it",
            HelpName = "DIR",
        };
        var command = new Command("compact", "rewrite a closed store densely and swap the copy in (the data file shrinks to the live pages)") { store, archive };
        command.SetAction((result, cancellationToken) => RunAsync(console, result.GetValue(store)!, result.GetValue(archive), cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(ToolConsole console, string store, string? archive, CancellationToken cancellationToken)
    {
        var directory = StoreAccess.RequireStore(store);
        var options = StoreAccess.Options(directory);
        options.JournalArchiveDirectory = archive == null ? null : Path.GetFullPath(archive);
        var compacted = await ToolProgress.RunAsync(console, progress =>
            StorageEnvironment.CompactAsync(options, ResultPrinter.Forward(progress), cancellationToken)).ConfigureAwait(false);

        var saved = compacted.DataFileBytesBefore - compacted.DataFileBytesAfter;
        ResultPrinter.Write(console.Out,
            ("compacted", directory),
            ("transaction", compacted.TransactionId),
            ("data file before", ResultPrinter.Bytes(compacted.DataFileBytesBefore)),
            ("data file after", ResultPrinter.Bytes(compacted.DataFileBytesAfter)),
            ("saved", saved >= 0 ? ResultPrinter.Bytes(saved) : "-" + ResultPrinter.Bytes(-saved)),
            ("duration", compacted.Duration));
        return ExitCodes.Ok;
    }
}
