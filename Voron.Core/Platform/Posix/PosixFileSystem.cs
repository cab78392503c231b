using Voron.Platform.Interop;

namespace Voron.Platform.Posix;

/// <summary>
/// Real files on Linux, the fast path: <see cref="RandomAccess"/> plus fdatasync, fallocate,
/// directory fsync and one reserved mmap through <see cref="Libc"/>. Linux only: other systems use
/// <see cref="Portable.PortableFileSystem"/>, which <see cref="StorageEnvironmentOptions.ForDirectory"/> picks.
/// </summary>
public sealed class PosixFileSystem : IFileSystem
{
    public static PosixFileSystem Instance { get; } = new();

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

    public bool FileExists(string path) => RealFiles.FileExists(path);

    public void DeleteFile(string path) => RealFiles.DeleteFile(path);

    public void MoveFile(string source, string destination) => RealFiles.MoveFile(source, destination);

    public IReadOnlyList<string> ListFiles(string directory, string pattern) => RealFiles.ListFiles(directory, pattern);

    public void CreateDirectory(string path) => RealFiles.CreateDirectory(path);

    public void SyncDirectory(string path)
    {
        EnsureLinux(path);
        RealFiles.FsyncDirectory(path, Libc.ORdOnly | Libc.ODirectory);
    }

    public IDisposable LockExclusive(string path) => RealFiles.LockExclusive(path);
}
