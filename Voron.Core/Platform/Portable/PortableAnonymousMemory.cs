using System.IO.MemoryMappedFiles;

namespace Voron.Platform.Portable;

/// <summary>
/// Zeroed read-write memory at a fixed address, for in-memory files off Linux (Linux uses an
/// anonymous mmap, <see cref="NativeMapping.Anonymous"/>): a <see cref="MemoryMappedFile"/> with no
/// file behind it. macOS backs it with sparse shared memory, committed as it is touched; Windows
/// backs it with the paging file and charges the whole length to the commit limit when the view
/// is mapped, so a large reservation can fail there with an <see cref="IOException"/> (keep
/// <c>InMemoryFileSystem.ReservePerFile</c> within the machine's commit limit).
/// </summary>
internal sealed unsafe class PortableAnonymousMemory : IMappedRegion
{
    private readonly MemoryMappedFile _map;
    private readonly MemoryMappedViewAccessor _view;
    private byte* _pointer;

    internal PortableAnonymousMemory(long length)
    {
        _map = MemoryMappedFile.CreateNew(null, length, MemoryMappedFileAccess.ReadWrite, MemoryMappedFileOptions.DelayAllocatePages, HandleInheritability.None);
        _view = PortableMapping.OpenView(_map, length, MemoryMappedFileAccess.ReadWrite, out _pointer);
        ReservedLength = length;
    }

    public byte* BaseAddress => _pointer != null ? _pointer : throw new ObjectDisposedException(nameof(PortableAnonymousMemory));

    public long ReservedLength { get; }

    public ReadOnlySpan<byte> GetSpan(long offset, int length)
    {
        if (offset < 0 || length < 0 || offset + length > ReservedLength)
        {
            throw new ArgumentOutOfRangeException(nameof(offset), $"[{offset}, {offset + length}) is outside the {ReservedLength}-byte memory.");
        }

        return new ReadOnlySpan<byte>(BaseAddress + offset, length);
    }

    /// <summary>Reserves <paramref name="length"/> bytes of zeroed memory at a fixed address, the
    /// platform's way: an anonymous mmap on Linux, a mapping without a file elsewhere.</summary>
    internal static IMappedRegion Reserve(long length) =>
        OperatingSystem.IsLinux() ? NativeMapping.Anonymous(length) : new PortableAnonymousMemory(length);

    public void Dispose()
    {
        if (_pointer != null)
        {
            _pointer = null;
            _view.SafeMemoryMappedViewHandle.ReleasePointer();
            _view.Dispose();
            _map.Dispose();
        }
    }
}
