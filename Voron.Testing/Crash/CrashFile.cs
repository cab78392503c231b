using Voron.Platform;

namespace Voron.Testing.Crash;

/// <summary>An open file of a <see cref="CrashFileSystem"/>: reads and mappings go to the current
/// bytes (the inner file); every change goes through the simulator, which counts it and tracks its durability.</summary>
internal sealed class CrashFile(CrashFileSystem owner, SimulatedFile file, IStorageFile current) : DelegatingStorageFile(current)
{
    public override void Write(long offset, ReadOnlySpan<byte> source) => owner.Write(file, Inner, offset, source.ToArray());

    public override void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        var bytes = new byte[buffers.Sum(b => b.Length)];
        var at = 0;
        foreach (var buffer in buffers)
        {
            buffer.Span.CopyTo(bytes.AsSpan(at));
            at += buffer.Length;
        }

        owner.Write(file, Inner, offset, bytes);
    }

    public override void FlushData() => owner.FlushData(file, Inner);

    public override void Preallocate(long length) => owner.Resize(file, Inner, length, growOnly: true);

    public override void SetLength(long length) => owner.Resize(file, Inner, length, growOnly: false);
}
