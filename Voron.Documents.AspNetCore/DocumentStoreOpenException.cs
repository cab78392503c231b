namespace Voron.Documents.AspNetCore;

/// <summary>
/// A registered document store could not be opened (H1): thrown by the host's start (which fails),
/// or by the first resolve of the store when it opens on first use. The message names the store,
/// the path and the cause; <see cref="Exception.InnerException"/> is the cause
/// (<see cref="StoreLockedException"/> when another process holds the store, a
/// <see cref="CorruptionException"/>, an <see cref="IOException"/>...). Catch it around
/// <c>app.Run()</c> to exit with a code instead of an unhandled exception.
/// </summary>
public sealed class DocumentStoreOpenException : InvalidOperationException
{
    /// <summary>Creates the exception for the store at <paramref name="path"/>.</summary>
    public DocumentStoreOpenException(string message, string path, Exception innerException)
        : base(message, innerException)
    {
        Path = path;
    }

    /// <summary>The store's directory (or "(in memory)").</summary>
    public string Path { get; }

    /// <summary>The lock file another opener holds, when that is why the store could not be opened; otherwise null.</summary>
    public string? LockFile => (InnerException as StoreLockedException)?.Path;

    /// <summary>
    /// For a locked store, the type and the message only: it is a refusal by the environment (another
    /// process has the store), the message names the lock file and what to do, and a stack trace
    /// would only bury that in a log. Any other cause prints in full.
    /// </summary>
    public override string ToString() => LockFile != null ? $"{GetType().FullName}: {Message}" : base.ToString();
}
