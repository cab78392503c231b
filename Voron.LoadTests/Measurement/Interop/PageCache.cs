using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Voron.LoadTests.Measurement.Interop;

/// <summary>
/// Drops one file's clean pages from the OS page cache (<c>posix_fadvise(POSIX_FADV_DONTNEED)</c>),
/// so an open or a read can be timed "cold" without root and without touching any other file on a
/// shared machine (<c>/proc/sys/vm/drop_caches</c> would do both). Dirty pages stay: sync first.
/// </summary>
internal static class PageCache
{
    private const int DontNeed = 4;

    /// <summary>Evicts every file under <paramref name="directory"/>; false where the call is not available (not Linux).</summary>
    public static bool Evict(string directory)
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        foreach (var path in Directory.EnumerateFiles(directory, "*", SearchOption.AllDirectories))
        {
            using var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            Evict(handle);
        }

        return true;
    }

    private static void Evict(SafeFileHandle handle)
    {
        var added = false;
        handle.DangerousAddRef(ref added);
        try
        {
            _ = posix_fadvise((int)handle.DangerousGetHandle(), 0, 0, DontNeed);
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }

    [DllImport("libc", EntryPoint = "posix_fadvise")]
    private static extern int posix_fadvise(int fd, long offset, long length, int advice);
}
