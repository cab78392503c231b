namespace Voron;

/// <summary>
/// A journal write, a commit after its journal write, or a flush failed earlier, so the
/// environment refuses writes (fail-stop): continuing could acknowledge a commit that is not
/// durable, or serve a state that differs from the journal. Nothing acknowledged is lost;
/// dispose the environment and open it again to recover from the journal. The cause is the
/// <see cref="Exception.InnerException"/> (also <see cref="StorageEnvironment.Failure"/>).
/// </summary>
public sealed class EnvironmentFailedException : InvalidOperationException
{
    /// <summary>The store at <paramref name="path"/> stopped accepting writes because of <paramref name="cause"/>.</summary>
    public EnvironmentFailedException(string path, Exception cause)
        : base($"The store at '{path}' stopped accepting writes after a failure ({cause?.GetType().Name}): {cause?.Message} " +
               "Dispose it and open it again to recover; every acknowledged commit is in the journal.", cause)
    {
        Path = path;
    }

    /// <summary>The store's directory.</summary>
    public string Path { get; }
}
