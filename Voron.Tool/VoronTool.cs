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
        var parsed = root.Parse(args);
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
        root.Subcommands.Add(ExportCommand.Create(console));
        root.Subcommands.Add(ImportCommand.Create(console));
        root.Subcommands.Add(SqlCommand.Create(console));
        root.Subcommands.Add(DumpCommand.Create(console));
        return root;
    }

    /// <summary>The exit code and the message for a failure, saying what happened and what to do.</summary>
    public static (int ExitCode, string Message) Describe(Exception e) => e switch
    {
        ToolException tool => (tool.ExitCode, tool.Message),
        OperationCanceledException => (ExitCodes.Cancelled, "Cancelled."),
        StoreLockedException locked => (ExitCodes.Failed,
            $"{locked.Message} The tool needs the store to itself: stop the application that has it open, or work on a backup (voron backup runs inside that application through BackupAsync)."),
        FormatVersionException format when format.Found > format.Supported => (ExitCodes.Failed,
            $"{format.Message} The store was written by a newer Voron: use a voron tool of that version."),
        FormatVersionException format => (ExitCodes.Failed, format.Message),
        CorruptionException corruption => (ExitCodes.Damage,
            $"Damage: {corruption.Message}\n  file:   {corruption.File}\n  offset: {corruption.Offset}\n" +
            "What to do: restore the last good backup (voron restore <backup> <new directory>, with --journal-archive to replay up to the damage), " +
            "then run voron check on the restored copy. Keep the damaged directory for diagnosis."),
        DirectoryNotFoundException missing => (ExitCodes.Usage, missing.Message),
        UnauthorizedAccessException denied => (ExitCodes.Failed, $"{denied.Message} Run the tool as a user who can read and write the store's files."),
        IOException io => (ExitCodes.Failed, $"I/O error: {io.Message}"),
        _ => (ExitCodes.Failed, $"{e.GetType().Name}: {e.Message}"),
    };
}
