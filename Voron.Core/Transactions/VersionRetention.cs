namespace Voron.Transactions;

/// <summary>
/// Which page versions someone may still read (PageTable PT6, PT7), captured in one step under the
/// readers' lock (StorageEnvironment.CaptureRetention).
/// </summary>
/// <param name="Snapshots">The distinct snapshots of live readers and the running flush's horizon (FL8), ascending.</param>
/// <param name="Committed">The last committed transaction: every reader that registers later sees it or a later one.</param>
/// <param name="OldestGeneration">The oldest generation a live transaction began in (long.MaxValue when none is live): retired scratch slots of older generations are free (PT7).</param>
internal readonly record struct VersionRetention(long[] Snapshots, long Committed, long OldestGeneration);
