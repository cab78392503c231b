namespace Voron;

/// <summary>What <see cref="StorageEnvironment.BackupAsync"/> wrote.</summary>
/// <param name="Directory">The backup's directory: a store that opens on its own.</param>
/// <param name="TransactionId">The snapshot copied: every transaction up to this one, none after it.</param>
/// <param name="Pages">Pages written to the copy's data file.</param>
/// <param name="Bytes">Bytes written to the destination.</param>
/// <param name="Duration">From the call until the manifest is durable (the copy, its verification and syncs included).</param>
/// <param name="WriterPause">The longest time writers waited on the backup (taking its snapshot).</param>
/// <param name="Compacted">Whether the copy was written densely (<see cref="BackupOptions.Compact"/>).</param>
public sealed record BackupResult(string Directory, long TransactionId, long Pages, long Bytes, TimeSpan Duration, TimeSpan WriterPause, bool Compacted);
