using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary><c>voron backup</c>: not built yet (issue 26).</summary>
internal static class BackupCommand
{
    public static Command Create(ToolConsole console)
    {
        var command = new Command("backup", "not built yet");
        command.SetAction(int (_) => throw new ToolException(ExitCodes.Failed, "voron backup is not built yet."));
        _ = console;
        return command;
    }
}
