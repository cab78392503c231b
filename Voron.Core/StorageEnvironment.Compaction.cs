namespace Voron;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Rewrites the store in <paramref name="options"/>' directory densely (tree by tree, in key
    /// order) and swaps the copy in. The store must not be open: compaction takes its lock.
    /// </summary>
    public static Task<CompactionResult> CompactAsync(StorageEnvironmentOptions options, IProgress<BackupProgress>? progress = null,
        CancellationToken cancellationToken = default) =>
        throw new NotImplementedException();
}
