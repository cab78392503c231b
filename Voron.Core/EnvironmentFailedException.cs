namespace Voron;

/// <summary>
/// A journal write or a flush failed earlier, so the environment refuses writes (fail-stop):
/// continuing could acknowledge a commit that is not durable. Nothing acknowledged is lost;
/// dispose the environment and open it again to recover from the journal.
/// </summary>
public sealed class EnvironmentFailedException : InvalidOperationException
{
    public EnvironmentFailedException(string path, Exception cause)
        : base($"The store at '{path}' stopped accepting writes after an I/O failure: {cause.Message} " +
               "Dispose it and open it again to recover; every acknowledged commit is in the journal.", cause)
    {
        Path = path;
    }

    public string Path { get; }
}
