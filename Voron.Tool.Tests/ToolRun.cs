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

    public static Task<ToolOutput> RunWithInputAsync(string input, params string[] args) => RunCoreAsync(input, new Dictionary<string, string>(), args);

    /// <summary>As <see cref="RunAsync"/>, the tool seeing <paramref name="environment"/> as its environment variables (and no others).</summary>
    public static Task<ToolOutput> RunWithEnvironmentAsync(IReadOnlyDictionary<string, string> environment, params string[] args) =>
        RunCoreAsync("", environment, args);

    private static async Task<ToolOutput> RunCoreAsync(string input, IReadOnlyDictionary<string, string> environment, string[] args)
    {
        var output = new StringWriter(new StringBuilder());
        var error = new StringWriter(new StringBuilder());
        var console = new ToolConsole(output, error, new StringReader(input), Interactive: false)
        {
            GetEnvironmentVariable = name => environment.GetValueOrDefault(name), // the machine's VORON_KEY_FILE never leaks into a test
        };
        var exit = await VoronTool.RunAsync(args, console, CancellationToken.None);
        return new ToolOutput(exit, output.ToString(), error.ToString());
    }
}
