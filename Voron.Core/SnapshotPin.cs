namespace Voron;

/// <summary>
/// What the oldest live read transaction holds back: the flush to the data file cannot pass its
/// snapshot (FL1), so every commit after it stays in the page table (in memory up to
/// <see cref="StorageEnvironmentOptions.MaxPageVersionMemory"/>, beyond it in the scratch file)
/// and in the journal until it ends. Reported by <see cref="StorageEnvironment.OldestSnapshotPin"/>, by
/// <see cref="StorageEnvironmentOptions.OnLongReader"/> and by the metrics
/// <c>voron.reader.oldest_age</c> and <c>voron.reader.held_back_bytes</c>.
/// </summary>
/// <param name="SnapshotTransactionId">The oldest snapshot a live reader holds.</param>
/// <param name="Age">How long that snapshot has had a live reader.</param>
/// <param name="HeldBackTransactions">Committed transactions after the snapshot not yet in the data file.</param>
/// <param name="HeldBackBytes">Bytes of their page versions (summed per transaction), held in the page table and the journal until the reader ends.</param>
public sealed record SnapshotPin(long SnapshotTransactionId, TimeSpan Age, int HeldBackTransactions, long HeldBackBytes);
