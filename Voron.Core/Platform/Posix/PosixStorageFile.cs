using Voron.Platform.Interop;

namespace Voron.Platform.Posix;

/// <summary>A real file on Linux (<see cref="PosixFileSystem.EnsureLinux"/> checked at open): positional I/O through <see cref="RandomAccess"/> (<see cref="RealStorageFile"/>), durability through fdatasync.</summary>
internal sealed class PosixStorageFile : RealStorageFile
{
    private PosixStorageFile(string path, FileStream stream)
        : base(path, stream)
    {
    }

    internal static PosixStorageFile Open(string path, FileOpenMode mode) =>
        new(path, RealFiles.OpenStream(path, mode, FileShare.ReadWrite));

    protected override bool IsDiskFull(IOException e) => e.HResult == Libc.ENOSPC;

    public override void FlushData() => Libc.ThrowIfFailed(Libc.fdatasync(Handle), "fdatasync", Path);

    public override void Preallocate(long length)
    {
        if (length <= Length)
        {
            return;
        }

        // mode 0: allocate blocks and extend the size. A file system without fallocate
        // (EOPNOTSUPP) falls back to SetLength, which leaves a sparse file: a full disk then
        // shows up at write time, still as an IOException from RandomAccess.
        if (Libc.fallocate(Handle, 0, 0, length) == 0)
        {
            return;
        }

        var errno = System.Runtime.InteropServices.Marshal.GetLastPInvokeError();
        if (errno == Libc.ENOSPC)
        {
            var current = Length;
            throw new DiskFullException(
                $"fallocate failed on '{Path}': growing it from {current:N0} to {length:N0} bytes needs {length - current:N0} more bytes, " +
                "and the file system that holds it is full (errno 28).", Path, length - current);
        }

        if (errno != Libc.EOPNOTSUPP)
        {
            throw Libc.ErrorFor(errno, "fallocate", Path);
        }

        RandomAccess.SetLength(Handle, length);
    }

    public override unsafe IMappedRegion MapReadOnly(long reserveLength)
    {
        var address = Libc.mmap(null, (nuint)reserveLength, Libc.ProtRead, Libc.MapShared, Handle, 0);
        if (Libc.IsMapFailed(address))
        {
            throw Libc.ErrorFor(System.Runtime.InteropServices.Marshal.GetLastPInvokeError(), "mmap", Path);
        }

        return new NativeMapping((byte*)address, reserveLength);
    }
}
