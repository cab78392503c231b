using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron backup &lt;store&gt; &lt;dest&gt;</c>: opens the store (so it must not be open elsewhere) and
/// copies it with <see cref="StorageEnvironment.BackupAsync"/>. A running application backs itself
/// up with that method instead. DocumentStore.BackupAsync is the same call, so documents need nothing more.
/// </summary>
internal static class BackupCommand
{
    public static Command Create(ToolConsole console)
    {
        var store = new Argument<string>("store") { Description = "the store's directory" };
        var destination = new Argument<string>("dest") { Description = "a new or empty directory for the backup" };
        var compact = new Option<bool>("--compact") { Description = "write the live pages densely (a new store: journal archives of the source cannot be replayed onto it)" };
        var maxRate = new Option<long?>("--max-bytes-per-second") { Description = "write at most this many bytes a second", HelpName = "N" };
        var noVerify = new Option<bool>("--no-verify") { Description = "skip opening the copy and checking every page before it is marked a backup" };
        var command = new Command("backup", "copy a closed store into a new directory (one snapshot, verified)")
        {
            store, destination, compact, maxRate, noVerify,
        };
        command.SetAction((result, cancellationToken) => RunAsync(console, result.GetValue(store)!, result.GetValue(destination)!,
            result.GetValue(compact), result.GetValue(maxRate), !result.GetValue(noVerify), cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(ToolConsole console, string store, string destination, bool compact, long? maxRate, bool verify,
        CancellationToken cancellationToken)
    {
        if (maxRate is <= 0)
        {
            throw new ToolException(ExitCodes.Usage, $"--max-bytes-per-second must be positive (was {maxRate}).");
        }

        var source = StoreAccess.RequireStore(store);
        var target = Path.GetFullPath(destination);
        if (string.Equals(source, target.TrimEnd(Path.DirectorySeparatorChar), StringComparison.Ordinal))
        {
            throw new ToolException(ExitCodes.Usage, "The backup's directory must not be the store's own.");
        }

        using var environment = StoreAccess.OpenEnvironment(source);
        var backup = await ToolProgress.RunAsync(console, progress => environment.BackupAsync(target, new BackupOptions
        {
            Compact = compact,
            MaxBytesPerSecond = maxRate,
            Verify = verify,
            Progress = ResultPrinter.Forward(progress),
        }, cancellationToken)).ConfigureAwait(false);

        ResultPrinter.Write(console.Out,
            ("backup", backup.Directory),
            ("transaction", backup.TransactionId),
            ("pages", backup.Pages),
            ("bytes", ResultPrinter.Bytes(backup.Bytes)),
            ("duration", backup.Duration),
            ("compacted", backup.Compacted),
            ("verified", verify));
        return ExitCodes.Ok;
    }
}
