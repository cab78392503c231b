namespace Voron;

/// <summary>What <see cref="StorageEnvironment.RestoreAsync"/> produced.</summary>
/// <param name="Directory">The restored store's directory.</param>
/// <param name="TransactionId">The last transaction the restored store holds.</param>
/// <param name="CommitTime">When that transaction committed: its journal record's time, or the backup manifest's for its own snapshot; null when unknown.</param>
/// <param name="TransactionsReplayed">Archived transactions replayed on top of the backup.</param>
/// <param name="JournalBytesReplayed">Bytes of archived journal read.</param>
/// <param name="Duration">The whole restore.</param>
public sealed record RestoreResult(string Directory, long TransactionId, DateTimeOffset? CommitTime, long TransactionsReplayed, long JournalBytesReplayed, TimeSpan Duration);
