namespace Voron.Testing.Crash;

/// <summary>SetLength (exact) or Preallocate (<see cref="GrowOnly"/>: never shrinks).</summary>
internal sealed record PendingResize(long Sequence, long Length, bool GrowOnly) : PendingChange(Sequence);
