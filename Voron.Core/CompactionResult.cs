namespace Voron;

/// <summary>What <see cref="StorageEnvironment.CompactAsync"/> did.</summary>
/// <param name="TransactionId">The last transaction of the store, which the compacted store holds.</param>
/// <param name="DataFileBytesBefore">The data file's size before.</param>
/// <param name="DataFileBytesAfter">The data file's size after.</param>
/// <param name="Duration">The whole compaction, the swap included.</param>
public sealed record CompactionResult(long TransactionId, long DataFileBytesBefore, long DataFileBytesAfter, TimeSpan Duration);
