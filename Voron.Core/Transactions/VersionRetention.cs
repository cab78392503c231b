namespace Voron.Transactions;

/// <summary>
/// Which page versions someone may still read (PageTable PT6, PT7), captured in one step under the
/// readers' lock (TransactionRegistry.CaptureRetention).
/// </summary>
/// <param name="Snapshots">The distinct snapshots of live readers and the running flush's horizon (FL8), ascending.</param>
/// <param name="Committed">The last committed transaction: every reader that registers later sees it or a later one.</param>
/// <param name="OldestGeneration">The oldest generation a live transaction began in (long.MaxValue when none is live): retired scratch slots and page buffers of older generations are free (PT7, PageBufferPool PB1).</param>
/// <param name="CurrentGeneration">The generation transactions begin in now: what a page buffer that leaves the page table under the same lock is retired with (PB1); it advances only under the page table's lock (RetireGeneration), so it holds until that lock is released.</param>
internal readonly record struct VersionRetention(long[] Snapshots, long Committed, long OldestGeneration, long CurrentGeneration);
