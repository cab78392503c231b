using Voron.Backup;
using Voron.Header;
using Voron.Journal;
using Voron.PageFiles;
using Voron.Platform;

namespace Voron.Compaction;

/// <summary>
/// Writes the live contents of a snapshot into a new store, densely: tree by tree, keys in
/// order, through a normal <see cref="StorageEnvironment"/> opened on the destination. Used by
/// compaction (StorageEnvironment.Compaction.cs) and by a compacting backup.
/// </summary>
/// <remarks>
/// Why the leaves come out full: every key is appended at the right edge of its tree, and a
/// leaf split at the right edge keeps every old node on the left page (Trees/BTree.Split.cs), so
/// each leaf but the last is filled before the next one starts. Pages are allocated in the order
/// they are written, so a tree's pages lie together in the new file. Page files are copied block
/// by block through the page-file API: their map holds raw page numbers of the source store,
/// which mean nothing in the destination.
/// </remarks>
// CP1. the destination holds exactly the snapshot's trees (same names, keys, values, counts) and
//      page files (same length, blocks, holes and sequence), under a fresh store id; when Write
//      returns it is a complete store, closed cleanly (everything in the data file, synced).
// CP5. the destination's last transaction is the snapshot's (or, when the copy needed more
//      transactions than the source ever committed, the copy's own larger count): never lower.
internal static class CompactingCopy
{
    /// <summary>Data written per destination transaction: large enough that commits are few, small enough to bound its page versions.</summary>
    internal const long TransactionBytes = 16L << 20;

    /// <summary>
    /// Copies <paramref name="source"/> into a new store at <paramref name="destinationDirectory"/>
    /// (empty or missing) on <paramref name="fileSystem"/>; returns the destination data file's
    /// size in pages. Progress goes to <paramref name="meter"/> (phase <c>copy</c>: entries and blocks),
    /// which also throws on cancellation. The destination may already hold one file named
    /// <paramref name="allowedFile"/> (a backup's in-progress manifest, BK1).
    /// </summary>
    /// <param name="source">The snapshot to copy.</param>
    /// <param name="fileSystem">Where the copy goes.</param>
    /// <param name="destinationDirectory">The copy's directory, empty or missing.</param>
    /// <param name="meter">Progress and cancellation.</param>
    /// <param name="allowedFile">A file the destination may already hold.</param>
    /// <param name="sealingKey">The key the copy is sealed under (a new salt: every page sealed anew, SL1, SL2), or null for a plaintext copy.</param>
    internal static long Write(ReadTransaction source, IFileSystem fileSystem, string destinationDirectory, CopyMeter meter, string? allowedFile = null,
        byte[]? sealingKey = null)
    {
        ArgumentNullException.ThrowIfNull(source);
        var layout = new StoreLayout(destinationDirectory);
        if (fileSystem.ListFiles(layout.Directory, "*").Any(f => Path.GetFileName(f) != allowedFile) || fileSystem.ListFiles(layout.JournalDirectory, "*").Count > 0)
        {
            throw new IOException($"The destination '{destinationDirectory}' is not empty; a copy is written only into an empty or missing directory.");
        }

        var names = source.GetTreeNames();
        var total = names.Sum(name => source.OpenTree(name)!.Count);
        meter.Phase("copy", total);

        var options = DestinationOptions(source.Environment.Options, fileSystem, destinationDirectory);
        options.SealingKey = sealingKey;
        using (var destination = StorageEnvironment.Open(options))
        {
            var writer = new ChunkedWriter(destination, meter);
            try
            {
                foreach (var name in names)
                {
                    if (PageFileFormat.IsPageFileTree(name))
                    {
                        CopyPageFile(source, writer, name[PageFileFormat.TreePrefix.Length..]);
                    }
                    else
                    {
                        CopyTree(source, writer, name);
                    }
                }

                writer.Commit();
            }
            finally
            {
                writer.Dispose();
            }
        }

        // A clean close flushed and synced everything; the data file grows geometrically, so cut
        // it to the pages the store allocated (open reserves up to NextPageNumber again).
        var header = HeaderFile.ReadNewest(fileSystem, layout)
            ?? throw new IOException($"The copy at '{destinationDirectory}' has no valid header after it was closed.");
        // The copy committed its own few transactions; it goes on from the snapshot's id, so
        // transaction ids never go back for the store's users (CP5). A copy that took more
        // transactions than the source ever had keeps its own, larger, id: never lower it,
        // pending-free runs carry the ids that freed them. Its journal starts in a new, empty file
        // (the clean close put every record in the data file), so the copy is just the data file
        // and headers: a backup may drop the journal directory's contents, a swap moves nothing
        // the data file lacks. Header first, then the old files: a crash between leaves files
        // before the header's start, which open releases (J6).
        header = header with
        {
            Revision = header.Revision + 1,
            LastSyncedTxId = Math.Max(header.LastSyncedTxId, source.Id),
            JournalFile = Math.Max(header.JournalFile + 1, Backup.SnapshotCopy.FirstJournalFileAfter(source.Environment)), // BK9
            JournalOffset = 0,
        };
        HeaderFile.Write(fileSystem, layout, header);
        foreach (var number in JournalFiles.List(fileSystem, layout.JournalDirectory))
        {
            fileSystem.DeleteFile(JournalFiles.PathOf(layout.JournalDirectory, number));
        }

        fileSystem.SyncDirectory(layout.JournalDirectory);

        var pages = header.State.NextPageNumber;
        using (var data = fileSystem.Open(layout.DataFile, FileOpenMode.OpenExisting))
        {
            if (data.Length > pages * Constants.PageSize)
            {
                data.SetLength(pages * Constants.PageSize);
                data.FlushData();
            }
        }

        return pages;
    }

    private static StorageEnvironmentOptions DestinationOptions(StorageEnvironmentOptions sourceOptions, IFileSystem fileSystem, string directory)
    {
        var options = StorageEnvironmentOptions.ForFileSystem(directory, fileSystem);
        options.Durability = DurabilityMode.Lazy; // nothing is acknowledged to anyone: the close syncs it all
        options.LazyFlushInterval = TimeSpan.FromHours(1);
        options.BackgroundFlush = false; // ChunkedWriter flushes after each transaction
        options.JournalFileSize = sourceOptions.JournalFileSize;
        options.MaxDataFileSize = sourceOptions.MaxDataFileSize;
        options.AsyncCommit = false;
        return options;
    }

    private static void CopyTree(ReadTransaction source, ChunkedWriter writer, string name)
    {
        var tree = source.OpenTree(name)!;
        writer.Tree(name); // empty trees are copied too
        var iterator = tree.Iterate();
        if (!iterator.SeekFirst())
        {
            return;
        }

        do
        {
            var key = iterator.Key;
            var value = iterator.Value;
            writer.Tree(name).Put(key, value);
            writer.Wrote(1, key.Length + value.Length);
        }
        while (iterator.MoveNext());
    }

    private static void CopyPageFile(ReadTransaction source, ChunkedWriter writer, string name)
    {
        var file = source.OpenPageFile(name)!;
        var map = source.OpenTree(PageFileFormat.TreeName(name))!;
        var length = file.Length;
        writer.PageFile(name).SetSequence(file.Sequence);
        var iterator = map.Iterate();
        if (iterator.SeekFirst())
        {
            do
            {
                if (iterator.Key.SequenceEqual(PageFileFormat.MetadataKey))
                {
                    continue;
                }

                var block = PageFileFormat.ReadBlockKey(iterator.Key, source.Environment.Layout.DataFile, name);
                if (!file.TryGetBlock(block, out var bytes))
                {
                    throw PageFileFormat.Corrupt(source.Environment.Layout.DataFile, name, $"block {block} is in the map but cannot be read");
                }

                var offset = block * PageFile.BlockSize;
                var count = (int)Math.Min(PageFile.BlockSize, length - offset); // PF2: offset < length
                writer.PageFile(name).Write(offset, bytes[..count]);
                writer.Wrote(1, PageFile.BlockSize);
            }
            while (iterator.MoveNext());
        }

        var copy = writer.PageFile(name);
        copy.SetLength(length); // a hole at the end
        copy.SetSequence(file.Sequence);
        writer.Wrote(1, 0); // the metadata entry
    }
}
