using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Voron.Platform.Interop;

/// <summary>
/// The few POSIX calls .NET does not expose: fdatasync, fallocate, fsync on a directory,
/// mmap/munmap, and open and flock to read the lock file without .NET's own flock. Linux only
/// (fsync on a directory, open and flock also run on macOS); every function returns -1 and sets
/// errno on failure, which <see cref="ThrowIfFailed"/> turns into an <see cref="IOException"/> naming the file.
/// </summary>
internal static unsafe partial class Libc
{
    private const string LibraryName = "libc";

    internal const int ProtNone = 0x0;
    internal const int ProtRead = 0x1;
    internal const int ProtWrite = 0x2;
    internal const int MapShared = 0x01;
    internal const int MapPrivate = 0x02;
    internal const int MapAnonymous = 0x20;
    internal const int MapNoReserve = 0x4000;
    internal const int MapFixedNoReplace = 0x100000; // Linux 4.17+; older kernels take the address as a hint
    internal const int ORdOnly = 0x0;
    internal const int ODirectory = 0x10000;
    internal const int ENOSPC = 28;
    internal const int EOPNOTSUPP = 95;
    internal const int LockShared = 1;    // LOCK_SH (the same on Linux and macOS)
    internal const int LockNonBlocking = 4; // LOCK_NB
    internal const int LockUnlock = 8;    // LOCK_UN

    [LibraryImport(LibraryName, SetLastError = true)]
    internal static partial int fdatasync(SafeFileHandle fd);

    [LibraryImport(LibraryName, SetLastError = true)]
    internal static partial int fsync(int fd);

    [LibraryImport(LibraryName, SetLastError = true)]
    internal static partial int fallocate(SafeFileHandle fd, int mode, long offset, long length);

    [LibraryImport(LibraryName, EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int open(string path, int flags);

    [LibraryImport(LibraryName, SetLastError = true)]
    internal static partial int close(int fd);

    [LibraryImport(LibraryName, SetLastError = true)]
    internal static partial int flock(SafeFileHandle fd, int operation);

    /// <summary>EWOULDBLOCK: 11 on Linux, 35 on macOS and the BSDs.</summary>
    internal static int EWouldBlock => OperatingSystem.IsLinux() ? 11 : 35;

    [LibraryImport(LibraryName, SetLastError = true)]
    internal static partial void* mmap(void* address, nuint length, int protection, int flags, SafeFileHandle fd, long offset);

    [LibraryImport(LibraryName, EntryPoint = "mmap", SetLastError = true)]
    internal static partial void* mmapAnonymous(void* address, nuint length, int protection, int flags, int fd, long offset);

    [LibraryImport(LibraryName, SetLastError = true)]
    internal static partial int munmap(void* address, nuint length);

    internal static bool IsMapFailed(void* result) => result == (void*)-1;

    /// <summary>Throws an <see cref="IOException"/> for a failed call; ENOSPC keeps its HResult
    /// so callers can tell a full disk.</summary>
    internal static void ThrowIfFailed(int result, string operation, string path)
    {
        if (result == 0)
        {
            return;
        }

        throw ErrorFor(Marshal.GetLastPInvokeError(), operation, path);
    }

    internal static IOException ErrorFor(int errno, string operation, string path)
    {
        var message = $"{operation} failed on '{path}': {Marshal.GetPInvokeErrorMessage(errno)} (errno {errno}).";
        return errno == ENOSPC ? new DiskFullException(message) : new IOException(message, errno);
    }
}
