using Voron.Tool;

// `voron <command> ...` (docs/tools.md). Ctrl+C cancels the running command (exit code 130).
using var cancellation = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) =>
{
    e.Cancel = true;
    cancellation.Cancel();
};

return await VoronTool.RunAsync(args, ToolConsole.FromProcess(), cancellation.Token).ConfigureAwait(false);
