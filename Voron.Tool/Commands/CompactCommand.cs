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
        var command = new Command("compact", "rewrite a closed store densely and swap the copy in (the data file shrinks to the live pages)") { store };
        command.SetAction((result, cancellationToken) => RunAsync(console, result.GetValue(store)!, cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(ToolConsole console, string store, CancellationToken cancellationToken)
    {
        var directory = StoreAccess.RequireStore(store);
        var compacted = await ToolProgress.RunAsync(console, progress =>
            StorageEnvironment.CompactAsync(StorageEnvironmentOptions.ForDirectory(directory), ResultPrinter.Forward(progress), cancellationToken)).ConfigureAwait(false);

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
