namespace Voron;

/// <summary>The store's directory is already open, in another process or in this one.</summary>
public sealed class StoreLockedException : IOException
{
    /// <summary>The lock file <paramref name="path"/> is held by another opener; <paramref name="inner"/> is the error taking it, when there was one.</summary>
#pragma warning disable RS0027 // shipped with its optional parameter before the overload naming the holder was added
    public StoreLockedException(string path, Exception? inner = null)
#pragma warning restore RS0027
        : this(path, holder: null, inner)
    {
    }

    /// <summary>As the other constructor, naming the holder (<paramref name="holder"/>) as far as the lock file tells.</summary>
    public StoreLockedException(string path, StoreLockInfo? holder, Exception? inner)
        : base($"The store at '{path}' is already open by {Describe(holder)}; " +
               "a store can be opened once at a time. Close the other opener, or open a different directory.", inner)
    {
        Path = path;
        Holder = holder;
    }

    /// <summary>The lock file that could not be taken.</summary>
    public string Path { get; }

    /// <summary>Who holds the store, as the lock file tells (null when it tells nothing).</summary>
    public StoreLockInfo? Holder { get; }

    private static string Describe(StoreLockInfo? holder) => holder?.ProcessId is { } pid
        ? pid == Environment.ProcessId ? $"another StorageEnvironment in this process ({pid})"
        : holder.ProcessName is { Length: > 0 } name ? $"process {pid} ({name})" : $"process {pid}"
        : "another process or another StorageEnvironment in this process";
}
