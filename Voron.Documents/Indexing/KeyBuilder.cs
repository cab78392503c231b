namespace Voron.Documents.Indexing;

/// <summary>A growable byte buffer for building index keys and bounds.</summary>
internal sealed class KeyBuilder(int capacity = 64)
{
    private byte[] _buffer = new byte[capacity];

    public int Length { get; private set; }

    public ReadOnlySpan<byte> Span => _buffer.AsSpan(0, Length);

    public void Append(byte value)
    {
        Ensure(1);
        _buffer[Length++] = value;
    }

    public void Append(ReadOnlySpan<byte> bytes)
    {
        Ensure(bytes.Length);
        bytes.CopyTo(_buffer.AsSpan(Length));
        Length += bytes.Length;
    }

    /// <summary>Cuts the buffer back to <paramref name="length"/> bytes.</summary>
    public void Truncate(int length) => Length = length;

    public void Clear() => Length = 0;

    public byte[] ToArray() => Span.ToArray();

    private void Ensure(int more)
    {
        if (Length + more > _buffer.Length)
        {
            Array.Resize(ref _buffer, Math.Max(_buffer.Length * 2, Length + more));
        }
    }
}
