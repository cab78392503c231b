namespace Voron.Testing.Crash;

/// <summary>
/// A change to a file made since its last FlushData: durable only once a FlushData returns (F1,
/// F2 in Platform/IStorageFile.cs). <see cref="Sequence"/> orders every change and directory
/// operation of one simulated machine in time.
/// </summary>
internal abstract record PendingChange(long Sequence);
