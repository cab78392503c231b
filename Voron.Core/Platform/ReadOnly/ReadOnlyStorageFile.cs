namespace Voron.Platform.ReadOnly;

/// <summary>A real file opened read-only, sharing everything (<see cref="ReadOnlyFileSystem"/>); every write throws.</summary>
internal sealed class ReadOnlyStorageFile : IStorageFile
{
    private readonly FileStream _stream; // owns the handle; reads are positional on it

    private ReadOnlyStorageFile(string path, FileStream stream)
    {
        Path = path;
        _stream = stream;
    }

    public string Path { get; }

    public long Length => RandomAccess.GetLength(_stream.SafeFileHandle);

    public static ReadOnlyStorageFile Open(string path) =>
        new(path, new FileStream(path, new FileStreamOptions
        {
            Mode = FileMode.Open,
            Access = FileAccess.Read,
            Share = FileShare.ReadWrite | FileShare.Delete, // the store's process may write, grow and delete it meanwhile
        }));

    public int Read(long offset, Span<byte> destination)
    {
        var total = 0;
        while (total < destination.Length)
        {
            var read = RandomAccess.Read(_stream.SafeFileHandle, destination[total..], offset + total);
            if (read == 0)
            {
                break;
            }

            total += read;
        }

        return total;
    }

    public void Write(long offset, ReadOnlySpan<byte> source) => throw ReadOnlyFileSystem.Refused("write", Path);

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers) => throw ReadOnlyFileSystem.Refused("write", Path);

    public void FlushData() => throw ReadOnlyFileSystem.Refused("flush", Path);

    public void Preallocate(long length) => throw ReadOnlyFileSystem.Refused("preallocate", Path);

    public void SetLength(long length) => throw ReadOnlyFileSystem.Refused("resize", Path);

    public IMappedRegion MapReadOnly(long reserveLength) => throw new NotSupportedException("A read-only look reads files; it does not map them.");

    public void Dispose() => _stream.Dispose();
}
