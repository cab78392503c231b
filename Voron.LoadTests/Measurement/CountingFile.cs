using Voron.Platform;

namespace Voron.LoadTests.Measurement;

/// <summary>One file of a <see cref="CountingFileSystem"/>: counts the bytes of every write.</summary>
internal sealed class CountingFile(CountingFileSystem owner, IStorageFile inner) : DelegatingStorageFile(inner)
{
    public override void Write(long offset, ReadOnlySpan<byte> source)
    {
        owner.Count(Path, source.Length);
        Inner.Write(offset, source);
    }

    public override void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        owner.Count(Path, buffers.Sum(b => (long)b.Length));
        Inner.Write(offset, buffers);
    }
}
