using System.CommandLine;
using System.Globalization;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron restore &lt;backup&gt; &lt;dest&gt;</c>: <see cref="StorageEnvironment.RestoreAsync"/> into a
/// new directory, optionally replaying a journal archive up to a transaction or a time.
/// </summary>
internal static class RestoreCommand
{
    /// <summary>The file that makes a directory a backup (Voron.Core's BackupManifest.FileName, internal there).</summary>

    public static Command Create(ToolConsole console)
    {
        var backup = new Argument<string>("backup") { Description = "the backup's directory (voron backup or BackupAsync wrote it)" };
        var destination = new Argument<string>("dest") { Description = "a new or empty directory for the restored store" };
        var archive = new Option<string?>("--journal-archive") { Description = "replay the journal files the source archived here (StorageEnvironmentOptions.JournalArchiveDirectory)", HelpName = "DIR" };
        var toTransaction = new Option<long?>("--to-transaction") { Description = "replay up to and including this transaction", HelpName = "N" };
        var toTime = new Option<string?>("--to-time") { Description = "replay transactions committed at or before this time (ISO 8601, e.g. 2026-11-27T10:15:00Z)", HelpName = "T" };
        var command = new Command("restore", "restore a backup into a new directory, replaying a journal archive to a point in time")
        {
            backup, destination, archive, toTransaction, toTime,
        };
        command.SetAction((result, cancellationToken) => RunAsync(console, result.GetValue(backup)!, result.GetValue(destination)!,
            result.GetValue(archive), result.GetValue(toTransaction), result.GetValue(toTime), cancellationToken));
        return command;
    }

    /// <summary>Parses --to-time: ISO 8601 in the invariant culture; a time without an offset is UTC.</summary>
    internal static DateTimeOffset ParseTime(string text) =>
        DateTimeOffset.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal | DateTimeStyles.AllowWhiteSpaces, out var time)
            ? time
            : throw new ToolException(ExitCodes.Usage, $"--to-time '{text}' is not a time: give ISO 8601, e.g. 2026-11-27T10:15:00Z or 2026-11-27T11:15:00+01:00.");

    private static async Task<int> RunAsync(ToolConsole console, string backup, string destination, string? archive, long? toTransaction, string? toTimeText,
        CancellationToken cancellationToken)
    {
        if (toTransaction != null && toTimeText != null)
        {
            throw new ToolException(ExitCodes.Usage, "Give --to-transaction or --to-time, not both.");
        }

        var toTime = toTimeText == null ? (DateTimeOffset?)null : ParseTime(toTimeText);
        if ((toTransaction != null || toTime != null) && archive == null)
        {
            throw new ToolException(ExitCodes.Usage, "--to-transaction and --to-time choose how far to replay a journal archive: give --journal-archive too.");
        }

        var source = Path.GetFullPath(backup);
        if (!Directory.Exists(source))
        {
            throw new ToolException(ExitCodes.Usage, $"No backup at '{backup}': the directory does not exist.");
        }

        if (!File.Exists(Path.Combine(source, StoreAccess.BackupManifest)))
        {
            throw new ToolException(ExitCodes.Usage,
                $"'{backup}' is not a backup: it has no {StoreAccess.BackupManifest} (a backup that did not complete has none; a store is backed up with voron backup).");
        }

        if (archive != null && !Directory.Exists(archive))
        {
            throw new ToolException(ExitCodes.Usage, $"No journal archive at '{archive}': the directory does not exist.");
        }

        var target = Path.GetFullPath(destination);
        var key = StoreKeyFile.Read(); // an encrypted backup's key: the restored store keeps it
        RestoreResult restored;
        try
        {
            restored = await ToolProgress.RunAsync(console, progress => StorageEnvironment.RestoreAsync(source, target, new RestoreOptions
            {
                JournalArchiveDirectory = archive == null ? null : Path.GetFullPath(archive),
                ToTransactionId = toTransaction,
                ToTime = toTime,
                Progress = ResultPrinter.Forward(progress),
                EncryptionKey = key,
            }, cancellationToken)).ConfigureAwait(false);
        }
        catch (ArgumentException e)
        {
            // RestoreAsync refuses a target the backup and archive cannot reach: the command line asked for it.
            throw new ToolException(ExitCodes.Usage, e.Message, e);
        }

        ResultPrinter.Write(console.Out,
            ("restored", restored.Directory),
            ("transaction", restored.TransactionId),
            ("commit time", restored.CommitTime),
            ("replayed", restored.TransactionsReplayed),
            ("journal bytes", ResultPrinter.Bytes(restored.JournalBytesReplayed)),
            ("duration", restored.Duration));
        return ExitCodes.Ok;
    }
}
