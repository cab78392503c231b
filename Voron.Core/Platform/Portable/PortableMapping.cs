using System.Diagnostics;
using System.IO.MemoryMappedFiles;
using Microsoft.Win32.SafeHandles;
using Voron.Platform.Interop;

namespace Voron.Platform.Portable;

/// <summary>
/// A read-only map of a file through <see cref="MemoryMappedFile"/>, which cannot reserve address
/// space past the end of a file (a read-only mapping may not be larger than the file, on Windows
/// and in .NET everywhere). So the map comes in views: <see cref="Cover"/> maps the whole file
/// again when it has grown past the newest view, and <see cref="BaseAddress"/> moves to the new
/// view. The owner releases the views it left behind once nobody holds an address into them
/// (<see cref="ReleaseSuperseded"/>; the store's rules are MV1–MV5 in Paging/SupersededViews.cs).
/// </summary>
/// <remarks>
/// MM1. A view that <see cref="Cover"/> superseded stays mapped until its owner releases it
///      (<see cref="ReleaseSuperseded"/>) or this region is disposed: spans readers took from an
///      older base address stay valid until then. Views are released oldest first, and the newest
///      view never is. A view costs address space, never memory: the file's pages are shared by
///      all views through the OS cache (F3), and views are not committed. Kept until close, the
///      views of a file grown geometrically (PG4: an eighth at a time) would add up to the square
///      of the file (some 8 TiB for 64 GiB); released, they come to the file plus what the
///      transactions live across its last growths can still hold.
/// MM2. Only bytes below the newest covered length may be read; the caller grows the file before
///      it asks to cover more (the pager's PG2).
/// MM3. Debug builds on Linux leave a released view's addresses reserved and unreadable (an
///      anonymous PROT_NONE mapping in its place, until the region is disposed), so a read through
///      a stale address faults at once instead of reading whatever is mapped there next. Release
///      builds give the address space back.
/// </remarks>
internal sealed unsafe class PortableMapping : IMappedRegion
{
    private readonly SafeFileHandle _handle;
    private readonly string _path;
    private readonly object _lock = new();

    // Guarded by _lock: every view made, oldest first; those before _released are unmapped (MM1).
    private readonly List<View> _views = [];
    private int _released;
    private long _mappedBytes;
    private readonly List<(nint Address, long Length)> _guards = []; // MM3

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

    public long SupersededViews
    {
        get
        {
            lock (_lock)
            {
                return Math.Max(_views.Count - 1, 0);
            }
        }
    }

    /// <summary>Bytes of address space the views still mapped take (tests and measurements).</summary>
    internal long MappedBytes
    {
        get
        {
            lock (_lock)
            {
                return _mappedBytes;
            }
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
            var accessor = OpenView(map, fileLength, MemoryMappedFileAccess.Read, out var pointer);
            _views.Add(new View(map, accessor, pointer, fileLength));
            _mappedBytes += fileLength;
            Volatile.Write(ref _covered, fileLength);
            _pointer = pointer;
        }
    }

    public void ReleaseSuperseded(long count)
    {
        lock (_lock)
        {
            if (_disposed)
            {
                return;
            }

            var last = (int)Math.Min(count, _views.Count - 1); // MM1: never the newest
            for (; _released < last; _released++)
            {
                var view = _views[_released];
                view.Unmap();
                _mappedBytes -= view.Length;
                Guard(view);
                _views[_released] = default;
            }
        }
    }

    /// <summary>MM3: in Debug builds on Linux, the released view's range becomes an unreadable reservation.</summary>
    [Conditional("DEBUG")]
    private void Guard(View view)
    {
        if (!OperatingSystem.IsLinux())
        {
            return;
        }

        var address = Libc.mmapAnonymous(view.Pointer, (nuint)view.Length, Libc.ProtNone,
            Libc.MapPrivate | Libc.MapAnonymous | Libc.MapNoReserve | Libc.MapFixedNoReplace, -1, 0);
        if (Libc.IsMapFailed(address))
        {
            return; // another mapping took the range first: nothing to guard
        }

        if (address != view.Pointer)
        {
            _ = Libc.munmap(address, (nuint)view.Length); // a kernel without MAP_FIXED_NOREPLACE put it elsewhere
            return;
        }

        _guards.Add(((nint)address, view.Length));
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
            for (var i = _released; i < _views.Count; i++)
            {
                _views[i].Unmap();
            }

            foreach (var (address, length) in _guards)
            {
                _ = Libc.munmap((void*)address, (nuint)length);
            }

            _views.Clear();
            _guards.Clear();
            _mappedBytes = 0;
        }
    }

    /// <summary>One view: its map, its accessor and the address of the file's first byte in it.</summary>
    private readonly struct View(MemoryMappedFile map, MemoryMappedViewAccessor accessor, byte* pointer, long length)
    {
        public byte* Pointer { get; } = pointer;

        public long Length { get; } = length;

        public void Unmap()
        {
            accessor.SafeMemoryMappedViewHandle.ReleasePointer();
            accessor.Dispose();
            map.Dispose();
        }
    }
}
