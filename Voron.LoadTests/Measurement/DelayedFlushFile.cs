using Voron.Platform;

namespace Voron.LoadTests.Measurement;

/// <summary>One file of a <see cref="DelayedFlushFileSystem"/>: <see cref="FlushData"/> waits the simulated delay after the real flush.</summary>
internal sealed class DelayedFlushFile(DelayedFlushFileSystem owner, IStorageFile inner) : IStorageFile
{
    public string Path => inner.Path;

    public long Length => inner.Length;

    public int Read(long offset, Span<byte> destination) => inner.Read(offset, destination);

    public void Write(long offset, ReadOnlySpan<byte> source) => inner.Write(offset, source);

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers) => inner.Write(offset, buffers);

    public void FlushData()
    {
        inner.FlushData();
        owner.Delay();
    }

    public void Preallocate(long length) => inner.Preallocate(length);

    public void SetLength(long length) => inner.SetLength(length);

    public IMappedRegion MapReadOnly(long reserveLength) => inner.MapReadOnly(reserveLength);

    public void Dispose() => inner.Dispose();
}
