using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary><c>voron restore</c>: not built yet (issue 26).</summary>
internal static class RestoreCommand
{
    public static Command Create(ToolConsole console)
    {
        var command = new Command("restore", "not built yet");
        command.SetAction(int (_) => throw new ToolException(ExitCodes.Failed, "voron restore is not built yet."));
        _ = console;
        return command;
    }
}
