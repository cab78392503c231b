using Microsoft.Win32.SafeHandles;
using Voron.Platform.Interop;

namespace Voron.Platform.Posix;

/// <summary>A real file on Linux (<see cref="PosixFileSystem.EnsureLinux"/> checked at open): positional I/O through <see cref="RandomAccess"/>, durability through fdatasync.</summary>
internal sealed class PosixStorageFile : IStorageFile
{
    // The stream only owns the handle (it applies the owner-only create mode); all I/O is
    // positional through RandomAccess on the handle, never through the stream's position.
    private readonly FileStream _stream;
    private readonly SafeFileHandle _handle;

    private PosixStorageFile(string path, FileStream stream)
    {
        Path = path;
        _stream = stream;
        _handle = stream.SafeFileHandle;
    }

    public string Path { get; }

    public long Length => RandomAccess.GetLength(_handle);

    internal static PosixStorageFile Open(string path, FileOpenMode mode)
    {
        var fileMode = mode switch
        {
            FileOpenMode.OpenOrCreate => FileMode.OpenOrCreate,
            FileOpenMode.OpenExisting => FileMode.Open,
            FileOpenMode.CreateNew => FileMode.CreateNew,
            _ => throw new ArgumentOutOfRangeException(nameof(mode)),
        };
        var stream = new FileStream(path, PosixFileSystem.CreateOptions(fileMode, FileShare.ReadWrite));
        return new PosixStorageFile(path, stream);
    }

    public int Read(long offset, Span<byte> destination)
    {
        var total = 0;
        while (total < destination.Length)
        {
            var read = RandomAccess.Read(_handle, destination[total..], offset + total);
            if (read == 0)
            {
                break;
            }

            total += read;
        }

        return total;
    }

    public void Write(long offset, ReadOnlySpan<byte> source)
    {
        try
        {
            RandomAccess.Write(_handle, source, offset);
        }
        catch (IOException e) when (e.HResult == Libc.ENOSPC && e is not DiskFullException)
        {
            throw WriteFailed(offset, source.Length, e);
        }
    }

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        try
        {
            RandomAccess.Write(_handle, buffers, offset);
        }
        catch (IOException e) when (e.HResult == Libc.ENOSPC && e is not DiskFullException)
        {
            throw WriteFailed(offset, buffers.Sum(b => (long)b.Length), e);
        }
    }

    /// <summary>A write into space the file had not allocated (a sparse file, or a file system without fallocate) found the disk full.</summary>
    private DiskFullException WriteFailed(long offset, long length, IOException cause) =>
        new($"Writing {length:N0} bytes at offset {offset:N0} of '{Path}' failed: the file system that holds it is full ({cause.Message}). " +
            $"Free at least {length:N0} bytes there.", Path, length, cause);

    public void FlushData() => Libc.ThrowIfFailed(Libc.fdatasync(_handle), "fdatasync", Path);

    public void Preallocate(long length)
    {
        if (length <= Length)
        {
            return;
        }

        // mode 0: allocate blocks and extend the size. A file system without fallocate
        // (EOPNOTSUPP) falls back to SetLength, which leaves a sparse file: a full disk then
        // shows up at write time, still as an IOException from RandomAccess.
        if (Libc.fallocate(_handle, 0, 0, length) == 0)
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

        RandomAccess.SetLength(_handle, length);
    }

    public void SetLength(long length) => RandomAccess.SetLength(_handle, length);

    public unsafe IMappedRegion MapReadOnly(long reserveLength)
    {
        var address = Libc.mmap(null, (nuint)reserveLength, Libc.ProtRead, Libc.MapShared, _handle, 0);
        if (Libc.IsMapFailed(address))
        {
            throw Libc.ErrorFor(System.Runtime.InteropServices.Marshal.GetLastPInvokeError(), "mmap", Path);
        }

        return new NativeMapping((byte*)address, reserveLength);
    }

    public void Dispose() => _stream.Dispose();
}
