using Spectre.Console;

namespace Voron.Tool;

/// <summary>
/// Where a command reads and writes: <see cref="Out"/> carries the command's data (tables, JSON,
/// JSON Lines, dumps) and nothing else, so it can be piped; <see cref="Error"/> carries progress,
/// warnings and errors. Tests pass string writers; the process passes the console.
/// </summary>
/// <param name="Out">Standard output.</param>
/// <param name="Error">Standard error.</param>
/// <param name="In">Standard input (the <c>sql</c> command's statements, <c>import</c> from <c>-</c>).</param>
/// <param name="Interactive">True when standard error is a terminal: progress is drawn as a bar; otherwise it is written as occasional lines.</param>
internal sealed record ToolConsole(TextWriter Out, TextWriter Error, TextReader In, bool Interactive)
{
    public static ToolConsole FromProcess() =>
        new(Console.Out, Console.Error, Console.In, Interactive: !Console.IsErrorRedirected) { OpenRawOut = Console.OpenStandardOutput };

    /// <summary>The raw standard output, for commands that write bytes (export); null when <see cref="Out"/> is not the process's.</summary>
    public Func<Stream>? OpenRawOut { get; init; }

    /// <summary>Reads an environment variable (<c>VORON_KEY_FILE</c>); tests give their own.</summary>
    public Func<string, string?> GetEnvironmentVariable { get; init; } = Environment.GetEnvironmentVariable;

    /// <summary>A Spectre.Console console over <see cref="Out"/> for tables (no colours unless it is a terminal).</summary>
    public IAnsiConsole OutConsole() => AnsiConsole.Create(new AnsiConsoleSettings
    {
        Out = new AnsiConsoleOutput(Out),
        Ansi = Interactive && ReferenceEquals(Out, Console.Out) && !Console.IsOutputRedirected ? AnsiSupport.Detect : AnsiSupport.No,
        ColorSystem = Interactive && ReferenceEquals(Out, Console.Out) && !Console.IsOutputRedirected ? ColorSystemSupport.Detect : ColorSystemSupport.NoColors,
        Interactive = InteractionSupport.No,
    });

    /// <summary>A Spectre.Console console over <see cref="Error"/> for progress bars.</summary>
    public IAnsiConsole ErrorConsole() => AnsiConsole.Create(new AnsiConsoleSettings
    {
        Out = new AnsiConsoleOutput(Error),
        Ansi = Interactive ? AnsiSupport.Detect : AnsiSupport.No,
        ColorSystem = Interactive ? ColorSystemSupport.Detect : ColorSystemSupport.NoColors,
        Interactive = Interactive ? InteractionSupport.Yes : InteractionSupport.No,
    });
}
