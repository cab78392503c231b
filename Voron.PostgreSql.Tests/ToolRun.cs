using System.Text;
using Voron.Tool;

namespace Voron.PostgreSql.Tests;

/// <summary>What one run of the voron tool printed and returned.</summary>
internal sealed record ToolOutput(int ExitCode, string Out, string Error)
{
    public override string ToString() => $"exit {ExitCode}\n--- stdout ---\n{Out}\n--- stderr ---\n{Error}";
}

/// <summary>Runs the voron tool in this process, as `voron args...` would, capturing both streams.</summary>
internal static class ToolRun
{
    public static async Task<ToolOutput> RunAsync(params string[] args)
    {
        var output = new StringWriter(new StringBuilder());
        var error = new StringWriter(new StringBuilder());
        var console = new ToolConsole(output, error, new StringReader(""), Interactive: false);
        var exit = await VoronTool.RunAsync(args, console, CancellationToken.None);
        return new ToolOutput(exit, output.ToString(), error.ToString());
    }
}
