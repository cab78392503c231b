namespace Voron.Platform.Memory;

/// <summary>One open handle on an <see cref="InMemoryFile"/>.</summary>
internal sealed unsafe class InMemoryFileHandle : IStorageFile
{
    private InMemoryFile? _file;

    internal InMemoryFileHandle(InMemoryFile file)
    {
        _file = file;
    }

    public string Path => File.Path;

    public long Length => File.Length;

    private InMemoryFile File => _file ?? throw new ObjectDisposedException(nameof(InMemoryFileHandle));

    public int Read(long offset, Span<byte> destination) => File.Read(offset, destination);

    public void Write(long offset, ReadOnlySpan<byte> source) => File.Write(offset, source);

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        foreach (var buffer in buffers)
        {
            File.Write(offset, buffer.Span);
            offset += buffer.Length;
        }
    }

    public void FlushData()
    {
        _ = File;
    }

    public void Preallocate(long length) => File.Grow(length);

    public void SetLength(long length) => File.SetLength(length);

    public IMappedRegion MapReadOnly(long reserveLength)
    {
        var file = File;
        return new View(file, Math.Min(reserveLength, file.Reserve));
    }

    public void Dispose() => Interlocked.Exchange(ref _file, null)?.Release();

    /// <summary>A mapping of an in-memory file is its own memory, kept alive by its own handle.</summary>
    private sealed class View : IMappedRegion
    {
        private readonly InMemoryFileHandle _keepAlive;
        private byte* _pointer;

        internal View(InMemoryFile file, long length)
        {
            _keepAlive = file.OpenHandle();
            _pointer = file.BaseAddress;
            ReservedLength = length;
        }

        public byte* BaseAddress => _pointer != null ? _pointer : throw new ObjectDisposedException(nameof(View));

        public long ReservedLength { get; }

        public ReadOnlySpan<byte> GetSpan(long offset, int length)
        {
            if (offset < 0 || length < 0 || offset + length > ReservedLength)
            {
                throw new ArgumentOutOfRangeException(nameof(offset), $"[{offset}, {offset + length}) is outside the {ReservedLength}-byte mapping.");
            }

            return new ReadOnlySpan<byte>(BaseAddress + offset, length);
        }

        public void Dispose()
        {
            if (_pointer != null)
            {
                _pointer = null;
                _keepAlive.Dispose();
            }
        }
    }
}
