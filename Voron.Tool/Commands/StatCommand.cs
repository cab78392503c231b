using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary><c>voron stat</c>: not built yet (issue 26).</summary>
internal static class StatCommand
{
    public static Command Create(ToolConsole console)
    {
        var command = new Command("stat", "not built yet");
        command.SetAction(int (_) => throw new ToolException(ExitCodes.Failed, "voron stat is not built yet."));
        _ = console;
        return command;
    }
}
