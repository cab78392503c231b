namespace Voron.Transactions;

/// <summary>
/// One committed version of a page (or overflow run) in the page table: in memory
/// (<see cref="Bytes"/>), spilled to a scratch-file slot (<see cref="ScratchOffset"/>), or a
/// tombstone (freed at <see cref="TxId"/>: PT5). Immutable (PT1): spilling replaces the entry.
/// </summary>
internal readonly record struct PageVersion(long TxId, byte[]? Bytes, long ScratchOffset, int Length, uint SlotChecksum = 0, bool SlotSealed = false)
{
    /// <summary>The scratch slot of a spilled version (SC1, SC5).</summary>
    public Scratch.Slot Slot => new(ScratchOffset, SlotChecksum, SlotSealed);

    public bool IsTombstone => Bytes == null && ScratchOffset < 0;

    public bool IsSpilled => Bytes == null && ScratchOffset >= 0;

    public static PageVersion InMemory(long txId, byte[] bytes) => new(txId, bytes, -1, bytes.Length);

    public static PageVersion Tombstone(long txId) => new(txId, null, -1, 0);

    public static PageVersion Spilled(long txId, Scratch.Slot slot, int length) => new(txId, null, slot.Offset, length, slot.Checksum, slot.Sealed);
}
