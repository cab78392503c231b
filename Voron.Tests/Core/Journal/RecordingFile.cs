namespace Voron.Tests.Core.Journal;

/// <summary>One file of a <see cref="RecordingFileSystem"/>: logs writes, flushes and size changes.</summary>
internal sealed class RecordingFile(RecordingFileSystem owner, IStorageFile inner) : DelegatingStorageFile(inner)
{
    public override void Write(long offset, ReadOnlySpan<byte> source)
    {
        owner.Record($"Write {Path} {offset} {source.Length}");
        Inner.Write(offset, source);
    }

    public override void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        owner.Record($"WriteGather {Path} {offset} {buffers.Sum(b => b.Length)}");
        Inner.Write(offset, buffers);
    }

    public override void FlushData()
    {
        owner.Record($"FlushData {Path}");
        Inner.FlushData();
    }

    public override void Preallocate(long length)
    {
        owner.Record($"Preallocate {Path} {length}");
        Inner.Preallocate(length);
    }

    public override void SetLength(long length)
    {
        owner.Record($"SetLength {Path} {length}");
        Inner.SetLength(length);
    }
}
