using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;
using Voron.Platform.Interop;

namespace Voron.Platform;

/// <summary>
/// Reads the lock file (<see cref="LockFileRecord"/>) and tells whether the lock is held, without
/// taking it: an opener racing a look must not find its store locked by the look.
/// </summary>
/// <remarks>
/// <para>Linux and macOS: .NET takes flock(LOCK_SH) itself on every read-only FileStream, which a
/// held lock refuses, so the file is opened with open(2) and read with pread; the probe is
/// flock(LOCK_SH | LOCK_NB) on that descriptor, released at once. It holds a shared lock for the
/// few microseconds between the two calls: an opener whose flock(LOCK_EX | LOCK_NB) falls in that
/// window fails its attempt, and RealFiles.LockExclusive retries (four times over 100 ms) before it
/// gives up with <see cref="StoreLockedException"/>. (flock has no "test" operation; /proc/locks
/// would tell without a lock, from the file's inode, but exists on Linux only.)</para>
/// <para>Windows: the holder opened the file with FileShare.None, so any other open fails with a
/// sharing violation — that is the probe, and the record cannot be read while the lock is held
/// (the holder is then unknown).</para>
/// <para>With DOTNET_SYSTEM_IO_DISABLEFILELOCKING set, .NET takes no lock at all: the store is not
/// protected and the probe says it is not held.</para>
/// </remarks>
internal static class LockFileProbe
{
    /// <summary>What the probe found: the lock's state and record, the file's length (null when it is missing), and a problem reading it.</summary>
    internal sealed record Result(StoreLockInfo Lock, long? Length, string? Problem);

    /// <summary>Probes the lock file at <paramref name="path"/>; never throws for what the file holds (LF3).</summary>
    public static Result Probe(string path) => OperatingSystem.IsWindows() ? ProbeByShare(path) : ProbeByFlock(path);

    /// <summary>The holder as the record tells, for a lock an opener just failed to take (IsHeld = true).</summary>
    public static StoreLockInfo ReadHolder(string path)
    {
        if (OperatingSystem.IsWindows())
        {
            return new StoreLockInfo(true, null, null, null, null); // FileShare.None lets nobody read it
        }

        try
        {
            using var handle = OpenRaw(path);
            return handle == null ? new StoreLockInfo(true, null, null, null, null) : LockFileRecord.Parse(ReadRecord(handle, out _), isHeld: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return new StoreLockInfo(true, null, null, null, null);
        }
    }

    private static Result ProbeByFlock(string path)
    {
        try
        {
            using var handle = OpenRaw(path);
            if (handle == null)
            {
                return new Result(new StoreLockInfo(false, null, null, null, null), null, null);
            }

            var bytes = ReadRecord(handle, out var length);
            bool held;
            if (Libc.flock(handle, Libc.LockShared | Libc.LockNonBlocking) == 0)
            {
                _ = Libc.flock(handle, Libc.LockUnlock); // at once: an opener may be about to take it
                held = false;
            }
            else
            {
                var errno = Marshal.GetLastPInvokeError();
                if (errno != Libc.EWouldBlock)
                {
                    return new Result(LockFileRecord.Parse(bytes, isHeld: false), length,
                        $"Whether the lock file '{path}' is held could not be told: flock failed with errno {errno} ({Marshal.GetPInvokeErrorMessage(errno)}).");
                }

                held = true;
            }

            return new Result(LockFileRecord.Parse(bytes, held), length, null);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return new Result(new StoreLockInfo(false, null, null, null, null), null, $"The lock file '{path}' could not be read: {e.Message}");
        }
    }

    private static Result ProbeByShare(string path)
    {
        if (!File.Exists(path))
        {
            return new Result(new StoreLockInfo(false, null, null, null, null), null, null);
        }

        try
        {
            using var stream = new FileStream(path, new FileStreamOptions
            {
                Mode = FileMode.Open, Access = FileAccess.Read, Share = FileShare.ReadWrite | FileShare.Delete,
            });
            var bytes = ReadRecord(stream.SafeFileHandle, out var length);
            return new Result(LockFileRecord.Parse(bytes, isHeld: false), length, null);
        }
        catch (FileNotFoundException)
        {
            return new Result(new StoreLockInfo(false, null, null, null, null), null, null);
        }
        catch (UnauthorizedAccessException e)
        {
            return new Result(new StoreLockInfo(false, null, null, null, null), null, $"The lock file '{path}' could not be read: {e.Message}");
        }
        catch (IOException)
        {
            // A sharing violation: the holder opened it with FileShare.None. Its length still shows.
            return new Result(new StoreLockInfo(true, null, null, null, null), new FileInfo(path).Length, null);
        }
    }

    /// <summary>The file opened read-only with open(2), so .NET takes no flock; null when it does not exist.</summary>
    private static SafeFileHandle? OpenRaw(string path)
    {
        var fd = Libc.open(path, Libc.ORdOnly);
        if (fd < 0)
        {
            var errno = Marshal.GetLastPInvokeError();
            if (errno == 2) // ENOENT, the same on Linux and macOS
            {
                return null;
            }

            throw Libc.ErrorFor(errno, "open (lock file)", path);
        }

        return new SafeFileHandle(fd, ownsHandle: true);
    }

    /// <summary>The file's first <see cref="LockFileRecord.MaxBytes"/> + 1 bytes (more tells LF1 it is too long).</summary>
    private static byte[] ReadRecord(SafeFileHandle handle, out long length)
    {
        length = RandomAccess.GetLength(handle);
        var buffer = new byte[(int)Math.Min(length, LockFileRecord.MaxBytes + 1)];
        var total = 0;
        while (total < buffer.Length)
        {
            var read = RandomAccess.Read(handle, buffer.AsSpan(total), total);
            if (read == 0)
            {
                break;
            }

            total += read;
        }

        return buffer[..total];
    }
}
