using System.CommandLine;

namespace Voron.Tool.Commands;

/// <summary><c>voron sql</c>: not built yet (issue 26).</summary>
internal static class SqlCommand
{
    public static Command Create(ToolConsole console)
    {
        var command = new Command("sql", "not built yet");
        command.SetAction(int (_) => throw new ToolException(ExitCodes.Failed, "voron sql is not built yet."));
        _ = console;
        return command;
    }
}
