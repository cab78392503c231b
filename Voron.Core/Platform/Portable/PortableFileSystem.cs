using Voron.Platform.Interop;

namespace Voron.Platform.Portable;

/// <summary>
/// Real files through .NET's own APIs only (<see cref="RandomAccess"/>, <see cref="RandomAccess.FlushToDisk"/>,
/// <see cref="System.IO.MemoryMappedFiles.MemoryMappedFile"/>, <see cref="FileShare.None"/>): the file
/// system of every OS but Linux, and of Linux when
/// <see cref="StorageEnvironmentOptions.UsePortableFileSystem"/> asks for it.
/// </summary>
/// <remarks>
/// What it promises against <see cref="IStorageFile"/>'s F1–F3, per platform (docs/durability.md
/// cites each platform's documentation):
/// <list type="bullet">
/// <item>F1: <see cref="IStorageFile.FlushData"/> is <see cref="RandomAccess.FlushToDisk"/>: fsync on
///   Linux (more than fdatasync: it also writes the inode's times), fcntl(F_FULLFSYNC) on macOS (which
///   also empties the drive's write cache; plain fsync there does not), FlushFileBuffers on Windows.</item>
/// <item>F2: sizes are durable after FlushData as above. <see cref="SyncDirectory"/> fsyncs the
///   directory on Linux and macOS (through <see cref="Libc"/>: .NET cannot open a directory). On
///   Windows it does nothing: Windows has no directory flush reachable from .NET, and NTFS
///   journals its metadata but does not say when a new name or a rename is on disk. On macOS the
///   fsync is not F_FULLFSYNC, so the change may wait in the drive's cache until the next
///   FlushData. These are the places a platform weakens the contract (docs/durability.md, "Platforms").</item>
/// <item>F3: reads and the read-only mapping go through the OS cache that the writes go to, so
///   they see every write on all three.</item>
/// </list>
/// Preallocation is <see cref="RandomAccess.SetLength"/>: NTFS allocates the clusters (a full disk
/// fails there); on Linux and macOS the file may be sparse and a full disk shows at a write, as a
/// <see cref="DiskFullException"/> too.
/// </remarks>
public sealed class PortableFileSystem : IFileSystem
{
    /// <summary>The one instance (the class has no state).</summary>
    public static PortableFileSystem Instance { get; } = new();

    /// <inheritdoc/>
    public IStorageFile Open(string path, FileOpenMode mode) => PortableStorageFile.Open(path, mode);

    /// <inheritdoc/>
    public bool FileExists(string path) => RealFiles.FileExists(path);

    /// <inheritdoc/>
    public void DeleteFile(string path) => RealFiles.DeleteFile(path);

    /// <inheritdoc/>
    public void MoveFile(string source, string destination) => RealFiles.MoveFile(source, destination);

    /// <inheritdoc/>
    public IReadOnlyList<string> ListFiles(string directory, string pattern) => RealFiles.ListFiles(directory, pattern);

    /// <inheritdoc/>
    public void CreateDirectory(string path) => RealFiles.CreateDirectory(path);

    /// <summary>
    /// F2 for names: fsync on the directory on Linux and macOS (on macOS not past the drive's
    /// cache); nothing on Windows, which offers no directory flush to .NET (the weakenings
    /// docs/durability.md describes).
    /// </summary>
    public void SyncDirectory(string path)
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        // O_RDONLY alone: O_DIRECTORY's value differs between Linux and macOS, and fsync needs none.
        RealFiles.FsyncDirectory(path, Libc.ORdOnly);
    }

    /// <inheritdoc cref="RealFiles.LockExclusive"/>
    public IDisposable LockExclusive(string path) => RealFiles.LockExclusive(path);
}
