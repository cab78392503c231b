using Voron.Platform;

namespace Voron.LoadTests.Measurement;

/// <summary>One file of a <see cref="CountingFileSystem"/>: counts the bytes of every write.</summary>
internal sealed class CountingFile(CountingFileSystem owner, IStorageFile inner) : IStorageFile
{
    public string Path => inner.Path;

    public long Length => inner.Length;

    public int Read(long offset, Span<byte> destination) => inner.Read(offset, destination);

    public void Write(long offset, ReadOnlySpan<byte> source)
    {
        owner.Count(Path, source.Length);
        inner.Write(offset, source);
    }

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        owner.Count(Path, buffers.Sum(b => (long)b.Length));
        inner.Write(offset, buffers);
    }

    public void FlushData() => inner.FlushData();

    public void Preallocate(long length) => inner.Preallocate(length);

    public void SetLength(long length) => inner.SetLength(length);

    public IMappedRegion MapReadOnly(long reserveLength) => inner.MapReadOnly(reserveLength);

    public void Dispose() => inner.Dispose();
}
