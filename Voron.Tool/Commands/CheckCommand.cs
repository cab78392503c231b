using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary><c>voron check</c>: not built yet (issue 26).</summary>
internal static class CheckCommand
{
    public static Command Create(ToolConsole console)
    {
        var command = new Command("check", "not built yet");
        command.SetAction(int (_) => throw new ToolException(ExitCodes.Failed, "voron check is not built yet."));
        _ = console;
        return command;
    }
}
