using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary><c>voron export</c>: not built yet (issue 26).</summary>
internal static class ExportCommand
{
    public static Command Create(ToolConsole console)
    {
        var command = new Command("export", "not built yet");
        command.SetAction(int (_) => throw new ToolException(ExitCodes.Failed, "voron export is not built yet."));
        _ = console;
        return command;
    }
}
