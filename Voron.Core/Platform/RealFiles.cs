using System.Runtime.InteropServices;
using Voron.Platform.Interop;

namespace Voron.Platform;

/// <summary>
/// What the two real file systems (<see cref="Posix.PosixFileSystem"/>, <see cref="Portable.PortableFileSystem"/>)
/// do alike: names, directories, the one-opener lock and the owner-only create modes. They differ
/// in flushes, preallocation and mapping, which stay in their own folders.
/// </summary>
internal static class RealFiles
{
    private const UnixFileMode OwnerFile = UnixFileMode.UserRead | UnixFileMode.UserWrite;
    private const UnixFileMode OwnerDirectory = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute;

    /// <summary>Read-write, with the owner-only mode for a new file on Unix (Windows has no mode bits).</summary>
    public static FileStreamOptions CreateOptions(FileMode mode, FileShare share)
    {
        var options = new FileStreamOptions { Mode = mode, Access = FileAccess.ReadWrite, Share = share };
        if (!OperatingSystem.IsWindows() && mode != FileMode.Open)
        {
            options.UnixCreateMode = OwnerFile;
        }

        return options;
    }

    /// <summary>The stream that owns a data file's handle; all I/O is positional on the handle (<see cref="RealStorageFile"/>).</summary>
    public static FileStream OpenStream(string path, FileOpenMode mode, FileShare share)
    {
        var fileMode = mode switch
        {
            FileOpenMode.OpenOrCreate => FileMode.OpenOrCreate,
            FileOpenMode.OpenExisting => FileMode.Open,
            FileOpenMode.CreateNew => FileMode.CreateNew,
            _ => throw new ArgumentOutOfRangeException(nameof(mode)),
        };
        return new FileStream(path, CreateOptions(fileMode, share));
    }

    public static bool FileExists(string path) => File.Exists(path);

    public static void DeleteFile(string path) => File.Delete(path);

    public static void MoveFile(string source, string destination) => File.Move(source, destination, overwrite: true);

    public static IReadOnlyList<string> ListFiles(string directory, string pattern)
    {
        if (!Directory.Exists(directory))
        {
            return [];
        }

        var files = Directory.GetFiles(directory, pattern);
        Array.Sort(files, StringComparer.Ordinal);
        return files;
    }

    public static void CreateDirectory(string path)
    {
        // Directory.CreateDirectory over a file says "the file already exists", which reads as if
        // the store were there: say what is wrong instead.
        var full = Path.GetFullPath(path);
        for (var p = full; !string.IsNullOrEmpty(p); p = Path.GetDirectoryName(p))
        {
            if (File.Exists(p))
            {
                throw new IOException(
                    $"'{p}' is a file, not a directory: a store is a directory (the one that holds voron.data, or will). " +
                    $"Pass a directory path{(p == full ? "" : $"; '{path}' lies under that file")}.");
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

    /// <summary>F2 for names on Unix: fsync on the directory, opened with <paramref name="openFlags"/> (.NET cannot open a directory).</summary>
    public static void FsyncDirectory(string path, int openFlags)
    {
        var fd = Libc.open(path, openFlags);
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
    /// The returned object is the lock file's <see cref="FileStream"/>: the opener writes its
    /// record through it (<see cref="LockFileRecord"/>, whose FORMAT block describes the file).
    /// A refused opener reads that record (shared, without flock: <see cref="LockFileProbe"/>) to
    /// name the holder in the exception; on Windows FileShare.None lets nobody read it, and the
    /// holder stays unnamed.
    /// </summary>
    public static IDisposable LockExclusive(string path)
    {
        // LockFileProbe (voron info, StoreLockedException) holds a shared lock for a moment to
        // learn whether the store is open; an opener arriving in that moment retries four times
        // over 100 ms rather than failing. A store really open elsewhere fails all of them.
        const int Attempts = 5;
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return new FileStream(path, CreateOptions(FileMode.OpenOrCreate, FileShare.None));
            }
            catch (IOException e) when (e is not FileNotFoundException and not DirectoryNotFoundException)
            {
                if (attempt == Attempts)
                {
                    throw new StoreLockedException(path, LockFileProbe.ReadHolder(path), e);
                }

                Thread.Sleep(10 * attempt);
            }
        }
    }
}
