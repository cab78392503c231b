using System.CommandLine;
using Voron.Tool.Commands;

namespace Voron.Tool;

/// <summary>
/// The command line: one subcommand per file in Commands/, parsed by System.CommandLine. Every
/// failure ends here and becomes one message on standard error and an exit code
/// (<see cref="ExitCodes"/>): a usage error prints what was wrong and the command's help.
/// </summary>
internal static class VoronTool
{
    public static async Task<int> RunAsync(string[] args, ToolConsole console, CancellationToken cancellationToken)
    {
        var root = Build(console);
        // No response files: "@docs" is a tree's name (voron dump --tree @docs), not a file of arguments.
        var parsed = root.Parse(args, new ParserConfiguration { ResponseFileTokenReplacer = null });
        if (parsed.Errors.Count > 0)
        {
            foreach (var error in parsed.Errors)
            {
                await console.Error.WriteLineAsync(error.Message).ConfigureAwait(false);
            }

            await parsed.InvokeAsync(new InvocationConfiguration { Output = console.Error, Error = console.Error }, cancellationToken).ConfigureAwait(false);
            return ExitCodes.Usage;
        }

        try
        {
            StoreKeyFile.Select(parsed, console);
            return await parsed.InvokeAsync(new InvocationConfiguration
            {
                Output = console.Out,
                Error = console.Error,
                EnableDefaultExceptionHandler = false,
            }, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            var (code, message) = Describe(e);
            await console.Error.WriteLineAsync(message).ConfigureAwait(false);
            return code;
        }
    }

    private static RootCommand Build(ToolConsole console)
    {
        var root = new RootCommand("voron: inspect, check, back up, restore, compact, export, import, query and dump a Voron store (docs/tools.md).");
        root.Subcommands.Add(InfoCommand.Create(console));
        root.Subcommands.Add(StatCommand.Create(console));
        root.Subcommands.Add(CheckCommand.Create(console));
        root.Subcommands.Add(BackupCommand.Create(console));
        root.Subcommands.Add(RestoreCommand.Create(console));
        root.Subcommands.Add(CompactCommand.Create(console));
        root.Subcommands.Add(RekeyCommand.Create(console));
        root.Subcommands.Add(ExportCommand.Create(console));
        root.Subcommands.Add(ImportCommand.Create(console));
        root.Subcommands.Add(SqlCommand.Create(console));
        root.Subcommands.Add(DumpCommand.Create(console));
        root.Subcommands.Add(FollowCommand.Create(console));
        root.Subcommands.Add(KeyCommand.Create(console));
        root.Options.Add(StoreKeyFile.Option);
        return root;
    }

    /// <summary>What to do about damage, printed after every damage report (Describe, voron check).</summary>
    public const string DamageAdvice =
        "What to do: restore the last good backup into a new directory (voron restore <backup> <new directory>, " +
        "with --journal-archive <dir> to replay the archived journal up to the damage), then run voron check on the restored copy. " +
        "Keep the damaged directory as it is for diagnosis, and check the disk (damage that checksums catch is usually the hardware's).";

    /// <summary>The exit code and the message for a failure, saying what happened and what to do.</summary>
    public static (int ExitCode, string Message) Describe(Exception e) => e switch
    {
        ToolException tool => (tool.ExitCode, tool.Message),
        OperationCanceledException => (ExitCodes.Cancelled, "Cancelled."),
        StoreLockedException locked => (ExitCodes.Failed, DescribeLocked(locked)),
        EncryptionKeyException key => (ExitCodes.Usage, key.Message), // the message says what to give (--key-file, VORON_KEY_FILE)
        FormatVersionException format when format.Found > format.Supported => (ExitCodes.Failed,
            $"{format.Message} The store was written by a newer Voron (format version {format.Found}; this tool reads up to {format.Supported}): " +
            "use a voron tool of that version (dotnet tool update --global Voron.Tool). Nothing was changed."),
        FormatVersionException format => (ExitCodes.Failed, format.Message),
        CorruptionException corruption => (ExitCodes.Damage,
            $"Damage: {corruption.Reason}\n  file:   {corruption.File}\n  offset: {corruption.Offset}\n" +
            $"Run voron check on the store for a full report. {DamageAdvice}"),
        InvalidDataException invalid => (ExitCodes.Damage, $"Damage: {invalid.Message}\nRun voron check on the store for a full report. {DamageAdvice}"),
        DirectoryNotFoundException missing => (ExitCodes.Usage, $"{missing.Message} Check the path (a store is the directory the application opened)."),
        UnauthorizedAccessException denied => (ExitCodes.Failed, $"{denied.Message} Run the tool as a user who can read and write the store's files."),
        IOException io => (ExitCodes.Failed, $"I/O error: {io.Message}"),
        _ => (ExitCodes.Failed, $"{e.GetType().Name}: {e.Message}"),
    };

    /// <summary>
    /// A store open elsewhere: who holds it (the lock file's pid, process name and when it opened,
    /// <see cref="StoreLockedException.Holder"/>) and what to do. The tool reads without opening
    /// only in <c>voron info</c>; every other command needs the store to itself.
    /// </summary>
    private static string DescribeLocked(StoreLockedException locked)
    {
        var holder = locked.Holder is { } info ? Commands.InfoCommand.DescribeLock(info with { IsHeld = true }) : "held by another process (the lock file does not say which)";
        var store = Path.GetDirectoryName(locked.Path) is { Length: > 0 } directory ? $"The store '{directory}'" : "The store";
        return $"{store} is open elsewhere: {holder}.\n" +
               "What to do: stop that process (or close the store in it) and run the command again; " +
               "voron info works while the store is open, and a running application can take a backup with BackupAsync.";
    }
}
