namespace Voron;

/// <summary>The store's directory is already open, in another process or in this one.</summary>
public sealed class StoreLockedException : IOException
{
    /// <summary>The lock file <paramref name="path"/> is held by another opener; <paramref name="inner"/> is the error taking it, when there was one.</summary>
    public StoreLockedException(string path, Exception? inner = null)
        : base($"The store at '{path}' is already open by another process or another StorageEnvironment in this process; " +
               "a store can be opened once at a time. Close the other opener, or open a different directory.", inner)
    {
        Path = path;
    }

    /// <summary>The lock file that could not be taken.</summary>
    public string Path { get; }
}
