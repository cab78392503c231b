using Voron.Platform.Interop;

namespace Voron.Platform;

/// <summary>An address range from mmap, unmapped on dispose.</summary>
internal sealed unsafe class NativeMapping : IMappedRegion
{
    private byte* _pointer;

    internal NativeMapping(byte* pointer, long reservedLength)
    {
        _pointer = pointer;
        ReservedLength = reservedLength;
    }

    public byte* BaseAddress => _pointer != null ? _pointer : throw new ObjectDisposedException(nameof(NativeMapping));

    public long ReservedLength { get; }

    public ReadOnlySpan<byte> GetSpan(long offset, int length)
    {
        if (offset < 0 || length < 0 || offset + length > ReservedLength)
        {
            throw new ArgumentOutOfRangeException(nameof(offset), $"[{offset}, {offset + length}) is outside the {ReservedLength}-byte mapping.");
        }

        return new ReadOnlySpan<byte>(BaseAddress + offset, length);
    }

    /// <summary>Reserves <paramref name="length"/> bytes of zeroed, private, lazily committed memory.</summary>
    internal static NativeMapping Anonymous(long length)
    {
        var address = Libc.mmapAnonymous(null, (nuint)length, Libc.ProtRead | Libc.ProtWrite,
            Libc.MapPrivate | Libc.MapAnonymous | Libc.MapNoReserve, -1, 0);
        if (Libc.IsMapFailed(address))
        {
            throw Libc.ErrorFor(System.Runtime.InteropServices.Marshal.GetLastPInvokeError(), "mmap (anonymous)", "<memory>");
        }

        return new NativeMapping((byte*)address, length);
    }

    public void Dispose()
    {
        if (_pointer != null)
        {
            _ = Libc.munmap(_pointer, (nuint)ReservedLength);
            _pointer = null;
        }
    }
}
