using System.Text;

namespace Voron.Tool.Tests;

/// <summary>What one run of the tool printed and returned.</summary>
internal sealed record ToolOutput(int ExitCode, string Out, string Error)
{
    public override string ToString() => $"exit {ExitCode}\n--- stdout ---\n{Out}\n--- stderr ---\n{Error}";
}

/// <summary>Runs the tool in this process, as `voron args...` would, capturing both streams.</summary>
internal static class ToolRun
{
    public static Task<ToolOutput> RunAsync(params string[] args) => RunWithInputAsync(input: "", args);

    public static async Task<ToolOutput> RunWithInputAsync(string input, params string[] args)
    {
        var output = new StringWriter(new StringBuilder());
        var error = new StringWriter(new StringBuilder());
        var console = new ToolConsole(output, error, new StringReader(input), Interactive: false);
        var exit = await VoronTool.RunAsync(args, console, CancellationToken.None);
        return new ToolOutput(exit, output.ToString(), error.ToString());
    }
}
