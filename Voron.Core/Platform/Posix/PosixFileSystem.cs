using Voron.Platform.Interop;

namespace Voron.Platform.Posix;

/// <summary>
/// Real files on Linux, the fast path: <see cref="RandomAccess"/> plus fdatasync, fallocate,
/// directory fsync and one reserved mmap through <see cref="Libc"/>. Linux only: other systems use
/// <see cref="Portable.PortableFileSystem"/>, which <see cref="StorageEnvironmentOptions.ForDirectory"/> picks.
/// </summary>
public sealed class PosixFileSystem : IFileSystem
{
    internal const UnixFileMode OwnerFile = UnixFileMode.UserRead | UnixFileMode.UserWrite;
    internal const UnixFileMode OwnerDirectory = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute;

    public static PosixFileSystem Instance { get; } = new();

    internal static FileStreamOptions CreateOptions(FileMode mode, FileShare share)
    {
        var options = new FileStreamOptions { Mode = mode, Access = FileAccess.ReadWrite, Share = share };
        if (!OperatingSystem.IsWindows() && mode != FileMode.Open)
        {
            options.UnixCreateMode = OwnerFile;
        }

        return options;
    }

    public IStorageFile Open(string path, FileOpenMode mode)
    {
        EnsureLinux(path);
        return PosixStorageFile.Open(path, mode);
    }

    /// <summary>The Libc constants and calls here are Linux's (mmap flags, O_DIRECTORY, fallocate).</summary>
    internal static void EnsureLinux(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            throw new PlatformNotSupportedException(
                $"The POSIX file system (opening '{path}') runs on Linux only; this is {System.Runtime.InteropServices.RuntimeInformation.OSDescription}. " +
                "Use PortableFileSystem, which StorageEnvironmentOptions.ForDirectory picks on every other OS.");
        }
    }

    public bool FileExists(string path) => File.Exists(path);

    public void DeleteFile(string path) => File.Delete(path);

    public void MoveFile(string source, string destination) => File.Move(source, destination, overwrite: true);

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

    public void CreateDirectory(string path)
    {
        // Directory.CreateDirectory over a file says "the file already exists", which reads as if
        // the store were there: say what is wrong instead.
        for (var p = System.IO.Path.GetFullPath(path); !string.IsNullOrEmpty(p); p = System.IO.Path.GetDirectoryName(p))
        {
            if (File.Exists(p))
            {
                throw new IOException(
                    $"'{p}' is a file, not a directory: a store is a directory (the one that holds voron.data, or will). " +
                    $"Pass a directory path{(p == System.IO.Path.GetFullPath(path) ? "" : $"; '{path}' lies under that file")}.");
            }

            if (Directory.Exists(p))
            {
                break;
            }
        }

        if (OperatingSystem.IsWindows())
        {
            Directory.CreateDirectory(path);
        }
        else
        {
            Directory.CreateDirectory(path, OwnerDirectory);
        }
    }

    public void SyncDirectory(string path)
    {
        EnsureLinux(path);
        var fd = Libc.open(path, Libc.ORdOnly | Libc.ODirectory);
        if (fd < 0)
        {
            throw Libc.ErrorFor(System.Runtime.InteropServices.Marshal.GetLastPInvokeError(), "open (directory)", path);
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

    public IDisposable LockExclusive(string path)
    {
        try
        {
            // FileShare.None takes flock(LOCK_EX | LOCK_NB) on Unix. flock locks belong to the
            // open file description, so a second open of the same path in this process conflicts
            // too: "the same process twice" is refused like another process.
            return new FileStream(path, CreateOptions(FileMode.OpenOrCreate, FileShare.None));
        }
        catch (IOException e) when (e is not FileNotFoundException and not DirectoryNotFoundException)
        {
            throw new StoreLockedException(path, e);
        }
    }
}
