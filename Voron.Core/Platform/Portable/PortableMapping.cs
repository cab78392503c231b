using System.IO.MemoryMappedFiles;
using Microsoft.Win32.SafeHandles;

namespace Voron.Platform.Portable;

/// <summary>
/// A read-only map of a file through <see cref="MemoryMappedFile"/>, which cannot reserve address
/// space past the end of a file (a read-only mapping may not be larger than the file, on Windows
/// and in .NET everywhere). So the map comes in generations: <see cref="Cover"/> maps the whole
/// file again when it has grown past the newest view, and <see cref="BaseAddress"/> moves to the
/// new view.
/// </summary>
/// <remarks>
/// MM1. Every older view stays mapped until this region is disposed: spans readers took from an
///      older base address (pages a live transaction holds) stay valid, as they do under the
///      POSIX path's single reservation. The cost is address space, never memory: the file's
///      pages are shared by all views through the OS cache (F3), and views are not committed.
///      With the pager's geometric growth (PG4: an eighth of the size at a time) a file of size S
///      holds about 9·S of views up to 2 GiB, then S²/512 MiB beyond; a 64 GiB file needs some
///      8 TiB of the 128 TiB a 64-bit process has.
/// MM2. Only bytes below the newest covered length may be read; the caller grows the file before
///      it asks to cover more (the pager's PG2).
/// </remarks>
internal sealed unsafe class PortableMapping : IMappedRegion
{
    private readonly SafeFileHandle _handle;
    private readonly string _path;
    private readonly object _lock = new();
    private readonly List<MemoryMappedViewAccessor> _views = []; // MM1: all generations; guarded by _lock
    private readonly List<MemoryMappedFile> _maps = [];
    private byte* _pointer; // the newest view's first byte; null while the file is empty
    private long _covered;
    private bool _disposed;

    internal PortableMapping(SafeFileHandle handle, string path, long reservedLength)
    {
        _handle = handle;
        _path = path;
        ReservedLength = reservedLength;
        Cover(Math.Min(RandomAccess.GetLength(handle), reservedLength));
    }

    public long ReservedLength { get; }

    public byte* BaseAddress
    {
        get
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            return _pointer;
        }
    }

    public void Cover(long length)
    {
        lock (_lock)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (length <= _covered)
            {
                return;
            }

            if (length > ReservedLength)
            {
                throw new ArgumentOutOfRangeException(nameof(length), $"{length} bytes of '{_path}' is past the {ReservedLength}-byte reservation.");
            }

            var fileLength = Math.Min(RandomAccess.GetLength(_handle), ReservedLength);
            if (fileLength < length)
            {
                throw new InvalidOperationException($"MM2: cannot map {length} bytes of '{_path}': the file holds {fileLength}; grow it first.");
            }

            var map = MemoryMappedFile.CreateFromFile(_handle, null, fileLength, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: true);
            var view = OpenView(map, fileLength, MemoryMappedFileAccess.Read, out var pointer);
            _maps.Add(map);
            _views.Add(view);
            Volatile.Write(ref _covered, fileLength);
            _pointer = pointer;
        }
    }

    /// <summary>
    /// A view of the first <paramref name="length"/> bytes of <paramref name="map"/> and the address
    /// of its first byte, the pointer held until the view is disposed. Disposes the map when the
    /// view cannot be made.
    /// </summary>
    internal static MemoryMappedViewAccessor OpenView(MemoryMappedFile map, long length, MemoryMappedFileAccess access, out byte* first)
    {
        MemoryMappedViewAccessor view;
        try
        {
            view = map.CreateViewAccessor(0, length, access);
        }
        catch
        {
            map.Dispose();
            throw;
        }

        byte* pointer = null;
        view.SafeMemoryMappedViewHandle.AcquirePointer(ref pointer);
        first = pointer + view.PointerOffset;
        return view;
    }

    public ReadOnlySpan<byte> GetSpan(long offset, int length)
    {
        var covered = Volatile.Read(ref _covered);
        if (offset < 0 || length < 0 || offset + length > covered)
        {
            throw new ArgumentOutOfRangeException(nameof(offset), $"[{offset}, {offset + length}) is outside the {covered}-byte mapped part of '{_path}'.");
        }

        return new ReadOnlySpan<byte>(BaseAddress + offset, length);
    }

    public void Dispose()
    {
        lock (_lock)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            _pointer = null;
            foreach (var view in _views)
            {
                view.SafeMemoryMappedViewHandle.ReleasePointer();
                view.Dispose();
            }

            _maps.ForEach(m => m.Dispose());
            _views.Clear();
            _maps.Clear();
        }
    }
}
