using Voron.Diagnostics;

namespace Voron;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// The store's make-up as of the last commit: trees with pages by kind and fill, free space per
    /// section, journal files, scratch use, the oldest reader. Reads every tree page of one
    /// snapshot (not the overflow runs or page-file blocks) through a read transaction: seconds for
    /// a store of gigabytes, and it never blocks writers nor waits for them. Journal files, memory
    /// and the oldest reader are read at the call (they are not part of a snapshot). Throws
    /// <see cref="CorruptionException"/> for a page that breaks its format.
    /// </summary>
    public StoreStatistics GetStatistics()
    {
        ObjectDisposedException.ThrowIf(IsDisposed, this); // a failed store still reads: no ThrowIfUnusable
        return StatisticsCollector.Collect(this);
    }
}
