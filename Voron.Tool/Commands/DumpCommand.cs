using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary><c>voron dump</c>: not built yet (issue 26).</summary>
internal static class DumpCommand
{
    public static Command Create(ToolConsole console)
    {
        var command = new Command("dump", "not built yet");
        command.SetAction(int (_) => throw new ToolException(ExitCodes.Failed, "voron dump is not built yet."));
        _ = console;
        return command;
    }
}
