using System.Buffers;

namespace Voron.Scratch;

/// <summary>
/// Memory over a range of a mapping, so the flusher can hand a spilled page version to a gathered
/// write without copying it. Valid as long as the range is (the scratch slot is not reused: SC2).
/// </summary>
internal sealed unsafe class MappedMemory(byte* pointer, int length) : MemoryManager<byte>
{
    public override Span<byte> GetSpan() => new(pointer, length);

    public override MemoryHandle Pin(int elementIndex = 0) => new(pointer + elementIndex);

    public override void Unpin()
    {
        // Mapped memory never moves.
    }

    protected override void Dispose(bool disposing)
    {
        // The mapping belongs to the scratch file.
    }
}
