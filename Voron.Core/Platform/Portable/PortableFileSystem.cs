using System.Runtime.InteropServices;
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
    private const UnixFileMode OwnerFile = UnixFileMode.UserRead | UnixFileMode.UserWrite;
    private const UnixFileMode OwnerDirectory = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute;

    /// <summary>The one instance (the class has no state).</summary>
    public static PortableFileSystem Instance { get; } = new();

    /// <summary>FileShare.Delete on every data handle, so that on Windows a file another handle holds
    /// open (the scratch file, a journal file) can still be deleted or renamed over, as on POSIX.</summary>
    internal static FileStreamOptions CreateOptions(FileMode mode, FileShare share)
    {
        var options = new FileStreamOptions { Mode = mode, Access = FileAccess.ReadWrite, Share = share };
        if (!OperatingSystem.IsWindows() && mode != FileMode.Open)
        {
            options.UnixCreateMode = OwnerFile;
        }

        return options;
    }

    /// <inheritdoc/>
    public IStorageFile Open(string path, FileOpenMode mode) => PortableStorageFile.Open(path, mode);

    /// <inheritdoc/>
    public bool FileExists(string path) => File.Exists(path);

    /// <inheritdoc/>
    public void DeleteFile(string path) => File.Delete(path);

    /// <inheritdoc/>
    public void MoveFile(string source, string destination) => File.Move(source, destination, overwrite: true);

    /// <inheritdoc/>
    public IReadOnlyList<string> ListFiles(string directory, string pattern)
    {
        if (!Directory.Exists(directory))
        {
            return [];
        }

        var files = Directory.GetFiles(directory, pattern);
        Array.Sort(files, StringComparer.Ordinal);
        return files;
    }

    /// <inheritdoc/>
    public void CreateDirectory(string path)
    {
        for (var p = Path.GetFullPath(path); !string.IsNullOrEmpty(p); p = Path.GetDirectoryName(p))
        {
            if (File.Exists(p))
            {
                throw new IOException(
                    $"'{p}' is a file, not a directory: a store is a directory (the one that holds voron.data, or will). " +
                    $"Pass a directory path{(p == Path.GetFullPath(path) ? "" : $"; '{path}' lies under that file")}.");
            }

            if (Directory.Exists(p))
            {
                break;
            }
        }

        if (OperatingSystem.IsWindows())
        {
            Directory.CreateDirectory(path); // inherits the parent's ACL: Windows has no mode bits
        }
        else
        {
            Directory.CreateDirectory(path, OwnerDirectory);
        }
    }

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
        var fd = Libc.open(path, Libc.ORdOnly);
        if (fd < 0)
        {
            throw Libc.ErrorFor(Marshal.GetLastPInvokeError(), "open (directory)", path);
        }

        try
        {
            Libc.ThrowIfFailed(Libc.fsync(fd), "fsync (directory)", path);
        }
        finally
        {
            _ = Libc.close(fd);
        }
    }

    /// <summary>
    /// The one-opener rule: the lock file opened with <see cref="FileShare.None"/>. On Windows that
    /// is a sharing mode every other open (this process or another) is refused by; on Linux and
    /// macOS .NET takes flock(LOCK_EX | LOCK_NB) for it, which belongs to the open file
    /// description, so a second open in this process is refused like one from another process.
    /// </summary>
    public IDisposable LockExclusive(string path)
    {
        try
        {
            return new FileStream(path, CreateOptions(FileMode.OpenOrCreate, FileShare.None));
        }
        catch (IOException e) when (e is not FileNotFoundException and not DirectoryNotFoundException)
        {
            throw new StoreLockedException(path, e);
        }
    }
}
