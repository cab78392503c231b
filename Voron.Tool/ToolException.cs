namespace Voron.Tool;

/// <summary>
/// A failure a command reports to the person at the terminal: <see cref="Exception.Message"/> is
/// printed to standard error as it is (it says what happened and what to do), and the process
/// exits with <see cref="ExitCode"/>.
/// </summary>
internal sealed class ToolException : Exception
{
    public ToolException(int exitCode, string message, Exception? inner = null)
        : base(message, inner)
    {
        ExitCode = exitCode;
    }

    /// <summary>One of <see cref="ExitCodes"/>.</summary>
    public int ExitCode { get; }
}
