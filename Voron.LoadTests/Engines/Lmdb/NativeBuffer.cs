using System.Runtime.InteropServices;

namespace Voron.LoadTests.Engines.Lmdb;

/// <summary>
/// Unmanaged memory that keys and values are copied into before an LMDB call, so the calls need
/// no pinning and no unsafe code. The copy is of a few hundred bytes, small beside the call.
/// </summary>
internal sealed class NativeBuffer : IDisposable
{
    private nint _pointer;
    private int _capacity;

    public NativeBuffer(int capacity)
    {
        _pointer = Marshal.AllocHGlobal(capacity);
        _capacity = capacity;
    }

    /// <summary>Makes room for <paramref name="capacity"/> bytes; earlier contents are lost.</summary>
    public void EnsureCapacity(int capacity)
    {
        if (capacity > _capacity)
        {
            _pointer = Marshal.ReAllocHGlobal(_pointer, capacity);
            _capacity = capacity;
        }
    }

    /// <summary>Copies <paramref name="bytes"/> to <paramref name="offset"/> and describes them as an <see cref="MdbVal"/>.</summary>
    public MdbVal Set(int offset, byte[] bytes)
    {
        if (offset + bytes.Length > _capacity)
        {
            throw new ArgumentOutOfRangeException(nameof(bytes), $"{offset + bytes.Length} bytes do not fit in {_capacity}.");
        }

        Marshal.Copy(bytes, 0, _pointer + offset, bytes.Length);
        return new MdbVal(_pointer + offset, bytes.Length);
    }

    public void Dispose()
    {
        if (_pointer != 0)
        {
            Marshal.FreeHGlobal(_pointer);
            _pointer = 0;
            _capacity = 0;
        }
    }
}
