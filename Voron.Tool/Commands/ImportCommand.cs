using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary><c>voron import</c>: not built yet (issue 26).</summary>
internal static class ImportCommand
{
    public static Command Create(ToolConsole console)
    {
        var command = new Command("import", "not built yet");
        command.SetAction(int (_) => throw new ToolException(ExitCodes.Failed, "voron import is not built yet."));
        _ = console;
        return command;
    }
}
