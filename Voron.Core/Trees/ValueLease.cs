using System.Buffers;

namespace Voron.Trees;

/// <summary>
/// A copy of a value in an array rented from the shared pool (<see cref="Tree.GetLease"/>): it
/// outlives the transaction and crosses awaits. Dispose returns the array; using the memory after
/// that throws <see cref="ObjectDisposedException"/> (a memory taken before Dispose must not be used after it).
/// </summary>
internal sealed class ValueLease : IMemoryOwner<byte>
{
    private byte[]? _array;
    private readonly int _length;

    public ValueLease(ReadOnlySpan<byte> value)
    {
        _array = ArrayPool<byte>.Shared.Rent(Math.Max(1, value.Length));
        _length = value.Length;
        value.CopyTo(_array);
    }

    public Memory<byte> Memory
    {
        get
        {
            var array = Volatile.Read(ref _array);
            ObjectDisposedException.ThrowIf(array == null, this);
            return array.AsMemory(0, _length);
        }
    }

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _array, null) is { } array)
        {
            ArrayPool<byte>.Shared.Return(array);
        }
    }
}
