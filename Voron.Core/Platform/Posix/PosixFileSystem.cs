using Voron.Platform.Interop;

namespace Voron.Platform.Posix;

/// <summary>
/// Real files on Linux, the fast path: <see cref="RandomAccess"/> plus fdatasync, fallocate,
/// directory fsync and one reserved mmap through <see cref="Libc"/>. Linux only: other systems use
/// <see cref="Portable.PortableFileSystem"/>, which <see cref="StorageEnvironmentOptions.ForDirectory"/> picks.
/// </summary>
public sealed class PosixFileSystem : IFileSystem
{
    /// <summary>The one instance (the type holds no state).</summary>
    public static PosixFileSystem Instance { get; } = new();

    /// <inheritdoc/>
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

    /// <inheritdoc/>
    public void SyncDirectory(string path)
    {
        EnsureLinux(path);
        RealFiles.FsyncDirectory(path, Libc.ORdOnly | Libc.ODirectory);
    }

    /// <inheritdoc/>
    public IDisposable LockExclusive(string path) => RealFiles.LockExclusive(path);
}
