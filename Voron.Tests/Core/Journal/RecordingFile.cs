using Voron.Platform;

namespace Voron.Tests.Core.Journal;

/// <summary>One file of a <see cref="RecordingFileSystem"/>: logs writes, flushes and size changes.</summary>
internal sealed class RecordingFile(RecordingFileSystem owner, IStorageFile inner) : IStorageFile
{
    public string Path => inner.Path;

    public long Length => inner.Length;

    public int Read(long offset, Span<byte> destination) => inner.Read(offset, destination);

    public void Write(long offset, ReadOnlySpan<byte> source)
    {
        owner.Record($"Write {Path} {offset} {source.Length}");
        inner.Write(offset, source);
    }

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        owner.Record($"WriteGather {Path} {offset} {buffers.Sum(b => b.Length)}");
        inner.Write(offset, buffers);
    }

    public void FlushData()
    {
        owner.Record($"FlushData {Path}");
        inner.FlushData();
    }

    public void Preallocate(long length)
    {
        owner.Record($"Preallocate {Path} {length}");
        inner.Preallocate(length);
    }

    public void SetLength(long length)
    {
        owner.Record($"SetLength {Path} {length}");
        inner.SetLength(length);
    }

    public IMappedRegion MapReadOnly(long reserveLength) => inner.MapReadOnly(reserveLength);

    public void Dispose() => inner.Dispose();
}
