namespace Voron.Platform;

/// <summary>How <see cref="IFileSystem.Open"/> treats an existing or missing file.</summary>
public enum FileOpenMode
{
    /// <summary>Open the file if it exists, create it otherwise.</summary>
    OpenOrCreate,

    /// <summary>Open an existing file; a missing one is a <see cref="FileNotFoundException"/>.</summary>
    OpenExisting,

    /// <summary>Create a new file; an existing one is an <see cref="IOException"/>.</summary>
    CreateNew,
}

/// <summary>
/// The directory-level half of the file I/O layer (see <see cref="IStorageFile"/> for the
/// durability contract). Implementations: <c>Posix/PosixFileSystem</c> (real files) and
/// <c>Memory/InMemoryFileSystem</c> (the in-memory mode and the base of the crash simulator).
/// </summary>
public interface IFileSystem
{
    /// <summary>Opens a file for reading and writing; new files are readable by the owner only.</summary>
    IStorageFile Open(string path, FileOpenMode mode);

    /// <summary>Whether a file exists.</summary>
    bool FileExists(string path);

    /// <summary>Deletes a file if it exists.</summary>
    void DeleteFile(string path);

    /// <summary>Renames a file, replacing the target.</summary>
    void MoveFile(string source, string destination);

    /// <summary>The full paths of the files in <paramref name="directory"/> whose names match
    /// <paramref name="pattern"/> (a <c>*</c> wildcard pattern), sorted ordinally.</summary>
    IReadOnlyList<string> ListFiles(string directory, string pattern);

    /// <summary>Creates a directory (and its parents), readable by the owner only.</summary>
    void CreateDirectory(string path);

    /// <summary>Makes the directory's entries (creations, deletions, renames) durable.</summary>
    void SyncDirectory(string path);

    /// <summary>
    /// Takes an exclusive lock on <paramref name="path"/> that a second opener — in another
    /// process or in this one — cannot take; throws <see cref="StoreLockedException"/> if it is
    /// held. The lock lasts until the returned object is disposed.
    /// </summary>
    IDisposable LockExclusive(string path);
}
