using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary><c>voron info</c>: not built yet (issue 26).</summary>
internal static class InfoCommand
{
    public static Command Create(ToolConsole console)
    {
        var command = new Command("info", "not built yet");
        command.SetAction(int (_) => throw new ToolException(ExitCodes.Failed, "voron info is not built yet."));
        _ = console;
        return command;
    }
}
