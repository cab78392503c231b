using Microsoft.Win32.SafeHandles;

namespace Voron.Platform;

/// <summary>
/// A real file's positional I/O through <see cref="RandomAccess"/>, shared by
/// <see cref="Posix.PosixStorageFile"/> and <see cref="Portable.PortableStorageFile"/>: they differ
/// only in the flush (F1), preallocation, what counts as a full disk, and the read-only map.
/// </summary>
internal abstract class RealStorageFile : IStorageFile
{
    // The stream only owns the handle (it applies the owner-only create mode); all I/O is
    // positional through RandomAccess on the handle, never through the stream's position.
    private readonly FileStream _stream;

    protected RealStorageFile(string path, FileStream stream)
    {
        Path = path;
        _stream = stream;
        Handle = stream.SafeFileHandle;
    }

    public string Path { get; }

    public long Length => RandomAccess.GetLength(Handle);

    protected SafeFileHandle Handle { get; }

    /// <summary>Whether <paramref name="e"/>, from a write or a resize, says the file system is full.</summary>
    protected abstract bool IsDiskFull(IOException e);

    public int Read(long offset, Span<byte> destination)
    {
        var total = 0;
        while (total < destination.Length)
        {
            var read = RandomAccess.Read(Handle, destination[total..], offset + total);
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
            RandomAccess.Write(Handle, source, offset);
        }
        catch (IOException e) when (e is not DiskFullException && IsDiskFull(e))
        {
            throw WriteFailed(offset, source.Length, e);
        }
    }

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        try
        {
            // .NET gathers these into one pwritev on Unix and writes them one by one on Windows.
            RandomAccess.Write(Handle, buffers, offset);
        }
        catch (IOException e) when (e is not DiskFullException && IsDiskFull(e))
        {
            throw WriteFailed(offset, buffers.Sum(b => (long)b.Length), e);
        }
    }

    /// <summary>A write into space the file had not allocated (a sparse file, or a file system without fallocate) found the disk full.</summary>
    private DiskFullException WriteFailed(long offset, long length, IOException cause) =>
        new($"Writing {length:N0} bytes at offset {offset:N0} of '{Path}' failed: the file system that holds it is full ({cause.Message}). " +
            $"Free at least {length:N0} bytes there.", Path, length, cause);

    public abstract void FlushData();

    public abstract void Preallocate(long length);

    public void SetLength(long length) => RandomAccess.SetLength(Handle, length);

    public abstract IMappedRegion MapReadOnly(long reserveLength);

    public void Dispose() => _stream.Dispose();
}
