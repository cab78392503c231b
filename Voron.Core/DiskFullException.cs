namespace Voron;

/// <summary>
/// The disk had no room for a write or a preallocation (ENOSPC). The message says which file
/// needed how much; <see cref="Path"/> and <see cref="BytesNeeded"/> say it to code. Free space on
/// the file system holding <see cref="Path"/>, then reopen the store: a store that hit a full disk
/// refuses writes until it is reopened, and the reopen needs no more space than the store already
/// holds (docs/durability.md).
/// </summary>
public sealed class DiskFullException : IOException
{
    /// <summary>A full disk where the file and the bytes needed are not known (<see cref="Path"/> null, <see cref="BytesNeeded"/> 0).</summary>
    public DiskFullException(string message) : base(message) { }

    /// <summary>
    /// A write or preallocation of <paramref name="path"/> found no room; <paramref name="bytesNeeded"/>
    /// is how many more bytes it needed, and <paramref name="innerException"/> the I/O error that said so.
    /// </summary>
    public DiskFullException(string message, string path, long bytesNeeded, Exception? innerException = null)
        : base(message, innerException)
    {
        Path = path;
        BytesNeeded = bytesNeeded;
    }

    /// <summary>The file or directory that needed the space, or null when not known.</summary>
    public string? Path { get; }

    /// <summary>How many more bytes the failed call needed on that file system, or 0 when not known.</summary>
    public long BytesNeeded { get; }
}
