namespace Voron.Platform.ReadOnly;

/// <summary>
/// Real files opened for reading only, for looking at a store without opening it
/// (<see cref="StorageEnvironment.Inspect"/>): every open is read-only and shares reading, writing
/// and deleting with whoever else has the file (the store's own process may be running), and every
/// call that would change something throws. So the readers the engine uses (the header copies,
/// the journal scan) can run on it and provably write nothing.
/// </summary>
/// <remarks>
/// On Linux and macOS .NET takes flock(LOCK_SH) on a read-only open; the engine takes the same
/// shared lock on its data files (only the lock file is exclusive), so the two do not meet. The lock
/// file itself is never opened here: <see cref="LockFileProbe"/> reads it.
/// </remarks>
internal sealed class ReadOnlyFileSystem : IFileSystem
{
    /// <summary>The one instance (the type holds no state).</summary>
    public static ReadOnlyFileSystem Instance { get; } = new();

    public IStorageFile Open(string path, FileOpenMode mode) =>
        mode == FileOpenMode.OpenExisting ? ReadOnlyStorageFile.Open(path) : throw Refused("create", path);

    public bool FileExists(string path) => RealFiles.FileExists(path);

    public void DeleteFile(string path) => throw Refused("delete", path);

    public void MoveFile(string source, string destination) => throw Refused("rename", source);

    public IReadOnlyList<string> ListFiles(string directory, string pattern) => RealFiles.ListFiles(directory, pattern);

    public void CreateDirectory(string path) => throw Refused("create the directory", path);

    public void SyncDirectory(string path) => throw Refused("sync the directory", path);

    public IDisposable LockExclusive(string path) => throw Refused("lock", path);

    internal static InvalidOperationException Refused(string what, string path) =>
        new($"A read-only look at a store asked to {what} '{path}': nothing may change a store that is only being looked at.");
}
