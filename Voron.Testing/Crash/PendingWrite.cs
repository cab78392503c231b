namespace Voron.Testing.Crash;

/// <summary>A positional write (a gathered write is one change).</summary>
internal sealed record PendingWrite(long Sequence, long Offset, byte[] Bytes) : PendingChange(Sequence);
