namespace Voron.Testing.Processes;

/// <summary>
/// <c>hold &lt;dir&gt;</c>: opens the store in <c>dir</c> (creating it if needed), prints
/// <c>READY &lt;pid&gt;</c> and keeps it open until its standard input closes, then closes it
/// cleanly. Voron.Tool.Tests runs it to hold a store in another process, as an application would,
/// and checks that the tool names this process as the holder.
/// </summary>
internal static class HoldChild
{
    internal const string Command = "hold";

    internal static int Run(string directory, TextReader input, TextWriter output)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        output.WriteLine($"READY {Environment.ProcessId}");
        output.Flush();
        _ = input.ReadToEnd(); // until the parent closes our standard input (or dies)
        return 0;
    }
}
