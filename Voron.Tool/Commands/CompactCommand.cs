using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary><c>voron compact</c>: not built yet (issue 26).</summary>
internal static class CompactCommand
{
    public static Command Create(ToolConsole console)
    {
        var command = new Command("compact", "not built yet");
        command.SetAction(int (_) => throw new ToolException(ExitCodes.Failed, "voron compact is not built yet."));
        _ = console;
        return command;
    }
}
