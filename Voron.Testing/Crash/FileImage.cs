namespace Voron.Testing.Crash;

/// <summary>
/// The bytes of a file as a disk would hold them: a length, and the written prefix of the bytes
/// (everything past <see cref="Written"/> and below <see cref="Length"/> reads as zero, as a
/// preallocated or extended file does).
/// </summary>
internal sealed class FileImage
{
    private byte[] _bytes;

    public FileImage(byte[]? bytes = null, long length = 0)
    {
        _bytes = bytes ?? [];
        Length = Math.Max(length, _bytes.Length);
    }

    public long Length { get; private set; }

    /// <summary>How many leading bytes may be non-zero.</summary>
    public int Written => (int)Math.Min(_bytes.Length, Length);

    public ReadOnlySpan<byte> WrittenBytes => _bytes.AsSpan(0, Written);

    public FileImage Clone() => new(WrittenBytes.ToArray(), Length);

    public void Write(long offset, ReadOnlySpan<byte> source)
    {
        EnsureCapacity(offset + source.Length);
        source.CopyTo(_bytes.AsSpan(checked((int)offset)));
        Length = Math.Max(Length, offset + source.Length);
    }

    /// <summary>Extends the file with zeros (a preallocation, or the gap a write past the end leaves).</summary>
    public void Extend(long length) => Length = Math.Max(Length, length);

    /// <summary>Sets the length; bytes cut off read as zero if the file grows again.</summary>
    public void SetLength(long length)
    {
        if (length < Length && length < _bytes.Length)
        {
            _bytes.AsSpan(checked((int)length)).Clear();
        }

        Length = length;
    }

    public byte ReadByte(long offset) => offset < _bytes.Length && offset < Length ? _bytes[offset] : (byte)0;

    private void EnsureCapacity(long end)
    {
        if (end > _bytes.Length)
        {
            var grown = new byte[checked((int)Math.Max(end, Math.Min(Array.MaxLength, (long)_bytes.Length * 2)))];
            _bytes.CopyTo(grown, 0);
            _bytes = grown;
        }
    }
}
