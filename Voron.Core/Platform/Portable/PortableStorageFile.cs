using Microsoft.Win32.SafeHandles;

namespace Voron.Platform.Portable;

/// <summary>A real file through .NET's APIs only; <see cref="PortableFileSystem"/> states what each platform promises.</summary>
internal sealed class PortableStorageFile : IStorageFile
{
    // Windows: ERROR_HANDLE_DISK_FULL (39) and ERROR_DISK_FULL (112) as HRESULTs; Linux and macOS: ENOSPC (28).
    private const int WindowsHandleDiskFull = unchecked((int)0x80070027);
    private const int WindowsDiskFull = unchecked((int)0x80070070);
    private const int Enospc = 28;

    // The stream only owns the handle (it applies the owner-only create mode); all I/O is
    // positional through RandomAccess on the handle.
    private readonly FileStream _stream;
    private readonly SafeFileHandle _handle;

    private PortableStorageFile(string path, FileStream stream)
    {
        Path = path;
        _stream = stream;
        _handle = stream.SafeFileHandle;
    }

    public string Path { get; }

    public long Length => RandomAccess.GetLength(_handle);

    internal static PortableStorageFile Open(string path, FileOpenMode mode)
    {
        var fileMode = mode switch
        {
            FileOpenMode.OpenOrCreate => FileMode.OpenOrCreate,
            FileOpenMode.OpenExisting => FileMode.Open,
            FileOpenMode.CreateNew => FileMode.CreateNew,
            _ => throw new ArgumentOutOfRangeException(nameof(mode)),
        };
        var stream = new FileStream(path, PortableFileSystem.CreateOptions(fileMode, FileShare.ReadWrite | FileShare.Delete));
        return new PortableStorageFile(path, stream);
    }

    internal static bool IsDiskFull(IOException e) =>
        e is DiskFullException || e.HResult is Enospc or WindowsDiskFull or WindowsHandleDiskFull;

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
        catch (IOException e) when (IsDiskFull(e) && e is not DiskFullException)
        {
            throw WriteFailed(offset, source.Length, e);
        }
    }

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        try
        {
            // .NET gathers these into one pwritev on Unix and writes them one by one on Windows.
            RandomAccess.Write(_handle, buffers, offset);
        }
        catch (IOException e) when (IsDiskFull(e) && e is not DiskFullException)
        {
            throw WriteFailed(offset, buffers.Sum(b => (long)b.Length), e);
        }
    }

    private DiskFullException WriteFailed(long offset, long length, IOException cause) =>
        new($"Writing {length:N0} bytes at offset {offset:N0} of '{Path}' failed: the file system that holds it is full ({cause.Message}). " +
            $"Free at least {length:N0} bytes there.", Path, length, cause);

    /// <summary>F1: fsync on Linux, F_FULLFSYNC on macOS, FlushFileBuffers on Windows.</summary>
    public void FlushData() => RandomAccess.FlushToDisk(_handle);

    public void Preallocate(long length)
    {
        var current = Length;
        if (length <= current)
        {
            return;
        }

        try
        {
            RandomAccess.SetLength(_handle, length);
        }
        catch (IOException e) when (IsDiskFull(e) && e is not DiskFullException)
        {
            throw new DiskFullException(
                $"Growing '{Path}' from {current:N0} to {length:N0} bytes needs {length - current:N0} more bytes, " +
                $"and the file system that holds it is full ({e.Message}).", Path, length - current, e);
        }
    }

    public void SetLength(long length) => RandomAccess.SetLength(_handle, length);

    public IMappedRegion MapReadOnly(long reserveLength) => new PortableMapping(_handle, Path, reserveLength);

    public void Dispose() => _stream.Dispose();
}
