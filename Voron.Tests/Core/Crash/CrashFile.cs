using Voron.Platform;

namespace Voron.Tests.Core.Crash;

/// <summary>An open file of a <see cref="CrashFileSystem"/>: reads and mappings go to the current
/// bytes; every change goes through the simulator, which counts it and tracks its durability.</summary>
internal sealed class CrashFile(CrashFileSystem owner, SimulatedFile file, IStorageFile current) : IStorageFile
{
    public string Path => current.Path;

    public long Length => current.Length;

    public int Read(long offset, Span<byte> destination) => current.Read(offset, destination);

    public void Write(long offset, ReadOnlySpan<byte> source) => owner.Write(file, current, offset, source.ToArray());

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        var bytes = new byte[buffers.Sum(b => b.Length)];
        var at = 0;
        foreach (var buffer in buffers)
        {
            buffer.Span.CopyTo(bytes.AsSpan(at));
            at += buffer.Length;
        }

        owner.Write(file, current, offset, bytes);
    }

    public void FlushData() => owner.FlushData(file, current);

    public void Preallocate(long length) => owner.Resize(file, current, length, growOnly: true);

    public void SetLength(long length) => owner.Resize(file, current, length, growOnly: false);

    public IMappedRegion MapReadOnly(long reserveLength) => current.MapReadOnly(reserveLength);

    public void Dispose() => current.Dispose();
}
