namespace Voron.Tests.Crash;

/// <summary>
/// A change to a file made since its last FlushData: durable only once a FlushData returns (F1,
/// F2 in Platform/IStorageFile.cs). <see cref="Sequence"/> orders every change and directory
/// operation of one simulated machine in time.
/// </summary>
internal abstract record PendingChange(long Sequence);

/// <summary>A positional write (a gathered write is one change).</summary>
internal sealed record PendingWrite(long Sequence, long Offset, byte[] Bytes) : PendingChange(Sequence);

/// <summary>SetLength (exact) or Preallocate (<see cref="GrowOnly"/>: never shrinks).</summary>
internal sealed record PendingResize(long Sequence, long Length, bool GrowOnly) : PendingChange(Sequence);
