namespace Voron.Platform.Memory;

/// <summary>
/// The bytes of one in-memory file: a fixed reservation of address space, so that its address
/// never changes and a mapping is just its memory. Shared by every handle opened on it; freed when
/// the file is deleted and the last handle is closed. There is no finalizer: a pointer into the
/// memory (a read's copy, a pager's view) can outlive every reference the GC sees, so freeing it
/// from a finalizer would let such a copy touch unmapped memory. A file system dropped with its
/// files in it keeps their memory until the process ends: delete them (LC7 does, for a store
/// made by CreateInMemory).
/// </summary>
internal sealed unsafe class InMemoryFile
{
    private readonly IMappedRegion _memory;
    private readonly object _sizeLock = new();
    private int _references = 1; // the file system's own reference, dropped by Release
    private long _length;

    internal InMemoryFile(string path, long reserve)
    {
        Path = path;
        _memory = Portable.PortableAnonymousMemory.Reserve(reserve);
    }

    internal string Path { get; private set; }

    internal long Length => Volatile.Read(ref _length);

    internal byte* BaseAddress => _memory.BaseAddress;

    internal long Reserve => _memory.ReservedLength;

    internal void Rename(string path) => Path = path;

    internal InMemoryFileHandle OpenHandle()
    {
        Interlocked.Increment(ref _references);
        return new InMemoryFileHandle(this);
    }

    internal void Release()
    {
        if (Interlocked.Decrement(ref _references) == 0)
        {
            _memory.Dispose();
        }
    }

    internal int Read(long offset, Span<byte> destination)
    {
        var available = Math.Max(0, Math.Min(destination.Length, Length - offset));
        new ReadOnlySpan<byte>(BaseAddress + offset, (int)available).CopyTo(destination);
        return (int)available;
    }

    internal void Write(long offset, ReadOnlySpan<byte> source)
    {
        EnsureFits(offset + source.Length);
        source.CopyTo(new Span<byte>(BaseAddress + offset, source.Length));
        lock (_sizeLock)
        {
            _length = Math.Max(_length, offset + source.Length);
        }
    }

    internal void SetLength(long length)
    {
        EnsureFits(length);
        lock (_sizeLock)
        {
            if (length < _length)
            {
                // Bytes past the end read as zero if the file grows again, as on a real file.
                new Span<byte>(BaseAddress + length, checked((int)Math.Min(int.MaxValue, _length - length))).Clear();
            }

            _length = length;
        }
    }

    internal void Grow(long length)
    {
        EnsureFits(length);
        lock (_sizeLock)
        {
            _length = Math.Max(_length, length);
        }
    }

    private void EnsureFits(long end)
    {
        if (end > Reserve)
        {
            throw new DiskFullException($"The in-memory file '{Path}' cannot grow to {end} bytes: its reservation is {Reserve} bytes.");
        }
    }
}
