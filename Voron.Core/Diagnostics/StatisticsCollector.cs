namespace Voron.Diagnostics;

// Design notes — store statistics (StorageEnvironment.GetStatistics).
//
// Statistics describe the store as users meet it: trees by page kind and fill, free space per
// section, journal files, scratch use and the oldest reader. They are read, never kept: nothing
// on the commit path counts anything for them, and a call walks every tree page of one snapshot
// (TreeWalk.cs), the free-space digest and pending chain of that snapshot (SectionWalk.cs) and
// the journal directory (JournalFileStates.cs).
//
// Invariants:
//   ST1. Statistics read through a read transaction and take no lock a writer takes (not the
//        write lock, as CheckIntegrity does): a writer never waits for them, and they never wait
//        for a writer. Trees, allocation, free and pending pages and sections all come from that
//        one snapshot, so they add up: the sections' free pages sum to FreePages, and the trees'
//        pages plus free pages plus the free-space structures plus page 0 are AllocatedPages.
//   ST2. What is not versioned is read at the call, not at the snapshot: journal files and their
//        states, the data file's length, scratch and page-version memory, and the oldest reader
//        (taken before the statistics' own reader registers, so it is never that reader). These
//        may be a commit or a flush apart from the snapshot.
//   ST3. Counts come from the pages walked, not from the stored tree states (BT5 makes them equal
//        in a sound store; CheckIntegrity is what compares them). Bytes read are validated as any
//        read does (TreePage B1-B5, FS1/FS6/FS7 for the pending chain), and the walk stops with a
//        CorruptionException after more pages than the snapshot has allocated.

/// <summary>Builds <see cref="StoreStatistics"/> from one read transaction; see ST1-ST3 above.</summary>
internal static class StatisticsCollector
{
    public const string RootTreeName = "$root";

    public static StoreStatistics Collect(StorageEnvironment environment)
    {
        var oldestReader = environment.OldestSnapshotPin; // ST2: before our own reader registers
        using var read = environment.BeginRead(); // ST1
        var transaction = read.Low;
        var committed = transaction.Committed;
        var allocated = committed.State.NextPageNumber;

        var trees = new List<TreeStatistics> { TreeWalk.Walk(RootTreeName, transaction.Root, transaction.DataFilePath, allocated, pageFile: false) };
        foreach (var name in transaction.TreeNames())
        {
            var tree = transaction.OpenTree(name) ?? throw new InvalidOperationException($"Tree '{name}' is listed in the catalog but cannot be opened.");
            trees.Add(TreeWalk.Walk(name, tree, transaction.DataFilePath, allocated, PageFiles.PageFileFormat.IsPageFileTree(name)));
        }

        var summary = committed.FreeSpace;
        var sections = SectionWalk.Sections(transaction, committed.State.FreeSpaceRoot, allocated, summary);
        var journalFiles = JournalFileStates.List(environment);
        var pageTable = environment.PageTable;
        return new StoreStatistics(
            committed.TxId,
            environment.Pager.PageCount * Constants.PageSize,
            allocated,
            summary.FreePages + summary.PendingPages,
            summary.PendingPages,
            trees,
            sections,
            journalFiles,
            pageTable.SpilledBytes,
            pageTable.MemoryBytes,
            oldestReader)
        {
            DecryptedPages = environment.Pager.SealedPages?.Cache is { } cache
                ? new DecryptedPageCacheStatistics(cache.Capacity, cache.Bytes, cache.Count, cache.Misses, cache.Evictions)
                : null,
        };
    }
}
