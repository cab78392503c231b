using Voron.Header;
using Voron.Journal;
using Voron.Platform;

namespace Voron.Compaction;

/// <summary>
/// The swap that puts a compacted copy (in <c>&lt;store&gt;/compaction/</c>) in place of the store,
/// and what open does with whatever a crash left in that directory. Runs with the store's lock
/// held and the store closed.
/// </summary>
/// <remarks>
/// Swap, every step idempotent (a crash at any call is finished by the next open, CP2):
/// <code>
///   1. while compaction/voron.data exists: with a journal archive, archive the store's journal
///      files and write the compaction note (JA9); delete the store's journal files (the clean
///      close put every commit in the data file), sync journal/; move compaction/voron.data over
///      voron.data, sync the store directory and compaction/
///   2. move every compaction/journal/ file into journal/, sync both
///   3. move compaction/headers.one and headers.two over the store's, the one over the store's
///      newest header copy last, syncing the store directory after each (CP10); sync compaction/
///   4. delete what else is in compaction/ (the copy's lock and scratch files), then the marker; sync compaction/
/// </code>
/// Until step 3 ends, the store directory holds the old headers or a mix of the old store's newest
/// copy and one of the copy's (CP10): harmless, because nothing opens the store without first
/// finishing the swap, and CP3 accepts either. The empty
/// compaction/ directory is left in place: <see cref="IFileSystem"/> has no directory removal.
/// </remarks>
// CP2. once a valid marker is durable the swap completes, at compaction or at the next open;
//      before it, the copy is discarded. Either the old store or the copy is opened, never a mix.
// CP3. a marker is swapped only over the store it was made from, unchanged: the newest header's
//      store id is the copy's (the swap passed step 3 in part), or it is the source's and its
//      LastSyncedTxId is the marker's SourceTransaction. Anything else is a CorruptionException.
// CP4. old journal files are deleted only while the copy's data file has not been moved in, and
//      their deletion is durable before it is: the new store never finds an old store's record.
//      With a journal archive they are archived first, the live file included, and the
//      compaction note written (JA9): the swap never deletes a journal file the archive lacks.
// CP10. step 3 moves the copy's header over the store's older header copy first, syncs the store
//      directory, and only then replaces the newest one: at every instant (renames not yet synced
//      may survive in any subset, F2) the newest valid header in the store directory is the old
//      store's newest, naming the marker's transaction, or one of the copy's, so CP3 lets the swap
//      finish. Replacing the newest copy first could leave the old store's OLDER copy newest, which
//      names an earlier transaction: CP3 would refuse the swap over a data file already replaced.
internal static class CompactionSwap
{
    public const string DirectoryName = "compaction";
    public const string MarkerName = "ready";

    /// <summary>A revision of each header copy: odd ones go to headers.one, even ones to headers.two (StoreLayout.HeaderFile).</summary>
    private static readonly long[] HeaderRevisions = [1, 2];

    public static string CopyDirectory(StoreLayout layout) => Path.Combine(layout.Directory, DirectoryName);

    public static string MarkerPath(StoreLayout layout) => Path.Combine(CopyDirectory(layout), MarkerName);

    /// <summary>
    /// Open algorithm step 0: finishes a committed swap (CP2, CP3) or removes an interrupted
    /// copy. Returns whether it found anything to do.
    /// </summary>
    public static bool Resume(IFileSystem fileSystem, StoreLayout layout, string? archiveDirectory)
    {
        var copy = new StoreLayout(CopyDirectory(layout));
        var marker = CompactionMarker.Read(fileSystem, MarkerPath(layout));
        if (marker is { } valid)
        {
            RollForward(fileSystem, layout, valid, archiveDirectory);
            return true;
        }

        return Discard(fileSystem, copy);
    }

    /// <summary>Deletes every file of an uncommitted copy (no valid marker); returns whether there were any.</summary>
    public static bool Discard(IFileSystem fileSystem, StoreLayout copy)
    {
        var files = fileSystem.ListFiles(copy.JournalDirectory, "*").Concat(fileSystem.ListFiles(copy.Directory, "*")).ToList();
        foreach (var file in files)
        {
            fileSystem.DeleteFile(file);
        }

        if (files.Count > 0)
        {
            fileSystem.SyncDirectory(copy.Directory);
        }

        return files.Count > 0;
    }

    /// <summary>Steps 1..4 of the swap (see the remarks), after checking CP3; <paramref name="archiveDirectory"/> is the store's
    /// journal archive (StorageEnvironmentOptions.JournalArchiveDirectory), or null.</summary>
    public static void RollForward(IFileSystem fileSystem, StoreLayout layout, CompactionMarker marker, string? archiveDirectory)
    {
        var copy = new StoreLayout(CopyDirectory(layout));
        CheckMatches(fileSystem, layout, marker);

        if (fileSystem.FileExists(copy.DataFile))
        {
            if (archiveDirectory != null)
            {
                ArchiveOldJournal(fileSystem, layout, copy, marker, archiveDirectory); // CP4, JA9
            }

            // CP4: the store was closed cleanly (CP3 checked its header names the last transaction
            // as synced), so no journal file holds anything the data file lacks.
            foreach (var file in fileSystem.ListFiles(layout.JournalDirectory, "*" + JournalFiles.Extension)
                         .Concat(fileSystem.ListFiles(layout.JournalDirectory, "*" + JournalFiles.SpareExtension)))
            {
                fileSystem.DeleteFile(file);
            }

            fileSystem.SyncDirectory(layout.JournalDirectory);
            fileSystem.MoveFile(copy.DataFile, layout.DataFile);
            fileSystem.SyncDirectory(layout.Directory);
            fileSystem.SyncDirectory(copy.Directory);
        }

        var journals = fileSystem.ListFiles(copy.JournalDirectory, "*" + JournalFiles.Extension)
            .Concat(fileSystem.ListFiles(copy.JournalDirectory, "*" + JournalFiles.SpareExtension)).ToList();
        if (journals.Count > 0)
        {
            fileSystem.CreateDirectory(layout.JournalDirectory);
            foreach (var file in journals)
            {
                fileSystem.MoveFile(file, Path.Combine(layout.JournalDirectory, Path.GetFileName(file)));
            }

            fileSystem.SyncDirectory(layout.JournalDirectory);
            fileSystem.SyncDirectory(copy.JournalDirectory);
        }

        var pending = HeaderRevisions.Where(r => fileSystem.FileExists(copy.HeaderFile(r))).ToList();
        if (pending.Count > 0)
        {
            // CP10: the store's newest header copy is replaced last, each move durable before the next.
            var newest = HeaderFile.ReadNewest(fileSystem, layout) is { } found ? layout.HeaderFile(found.Revision) : null;
            foreach (var revision in pending.OrderBy(r => layout.HeaderFile(r) == newest ? 1 : 0))
            {
                fileSystem.MoveFile(copy.HeaderFile(revision), layout.HeaderFile(revision));
                fileSystem.SyncDirectory(layout.Directory);
            }

            fileSystem.SyncDirectory(copy.Directory);
        }

        var leftovers = fileSystem.ListFiles(copy.JournalDirectory, "*")
            .Concat(fileSystem.ListFiles(copy.Directory, "*").Where(f => Path.GetFileName(f) != MarkerName));
        foreach (var file in leftovers)
        {
            fileSystem.DeleteFile(file); // the copy's lock and scratch files
        }

        fileSystem.DeleteFile(MarkerPath(layout));
        fileSystem.SyncDirectory(copy.Directory);
    }

    /// <summary>
    /// JA9: archives every journal file of the old store, the live one included (a clean close
    /// archives only the files before it), then writes the compaction note naming its last file and
    /// transaction and where the compacted store's journal begins. Skipped when this compaction's
    /// note is there already: a roll-forward that a crash interrupted has archived them, and may
    /// have deleted some since.
    /// </summary>
    private static void ArchiveOldJournal(IFileSystem fileSystem, StoreLayout layout, StoreLayout copy, CompactionMarker marker, string archive)
    {
        if (ArchivedCompaction.List(fileSystem, archive).Any(n => n.SourceStoreId == marker.SourceStoreId && n.CopyStoreId == marker.CopyStoreId))
        {
            return;
        }

        var numbers = JournalFiles.List(fileSystem, layout.JournalDirectory);
        foreach (var number in numbers)
        {
            JournalArchiver.Archive(fileSystem, layout.JournalDirectory, archive, number); // JA2..JA4
        }

        var copyHeader = HeaderFile.ReadNewest(fileSystem, copy) ??
            throw new CorruptionException(copy.HeaderFile(1), 0, "CP3: the compacted copy has no valid header copy; refusing to swap it in");
        var sourceHeader = HeaderFile.ReadNewest(fileSystem, layout)!.Value; // CheckMatches found it
        var lastFile = numbers.Count > 0 ? numbers[^1] : sourceHeader.JournalFile;
        if (copyHeader.JournalFile <= lastFile)
        {
            throw new InvalidOperationException(
                $"BK9: the compacted copy's journal starts at file {copyHeader.JournalFile}, not past the store's last journal file {lastFile}; " +
                $"refusing to swap it in. Delete '{copy.Directory}' to keep the store as it is, and compact again.");
        }

        new ArchivedCompaction(marker.SourceStoreId, marker.SourceTransaction, lastFile, marker.CopyStoreId, copyHeader.LastSyncedTxId,
            copyHeader.JournalFile, DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()).Write(fileSystem, archive);
    }

    /// <summary>CP3: the marker belongs to this store as it is now.</summary>
    private static void CheckMatches(IFileSystem fileSystem, StoreLayout layout, CompactionMarker marker)
    {
        var path = MarkerPath(layout);
        var header = HeaderFile.ReadNewest(fileSystem, layout);
        if (header is not { } current)
        {
            throw new CorruptionException(path, 0,
                "CP3: a compaction marker is present but the store has no valid header copy; refusing to swap the compacted copy in");
        }

        if (current.StoreId == marker.CopyStoreId)
        {
            return; // the swap got as far as the headers
        }

        if (current.StoreId != marker.SourceStoreId)
        {
            throw new CorruptionException(path, CompactionMarker.SourceStoreIdOffset,
                $"CP3: the compaction marker was made from store {marker.SourceStoreId:X16} into copy {marker.CopyStoreId:X16}, but this store is {current.StoreId:X16}; " +
                $"refusing to swap a copy of another store in. Delete '{CopyDirectory(layout)}' if it was put there by hand");
        }

        if (current.LastSyncedTxId != marker.SourceTransaction)
        {
            throw new CorruptionException(path, CompactionMarker.SourceTransactionOffset,
                $"CP3: the compacted copy holds transaction {marker.SourceTransaction}, but the store's header says transaction {current.LastSyncedTxId} is synced; " +
                $"the copy is stale and is not swapped in. Delete '{CopyDirectory(layout)}' to keep the store as it is");
        }
    }
}
