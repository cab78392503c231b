using System.Diagnostics;
using Voron.Header;
using Voron.Platform;

namespace Voron.Backup;

// Hot backup: a page-by-page copy of one snapshot (StorageEnvironment.BackupAsync).
//
// BK5. the copy holds exactly snapshot S: a read transaction at S is held for the whole copy, so
//      the flusher's horizon stays <= S (FL1, PT3) and the data file never gets a version newer
//      than S while the copy runs. Each page p < NextPageNumber(S) is copied as the newest page
//      table version <= S if there is one (not a tombstone), else as the data file's bytes, read
//      raw (a free page holds anything: a commit after S may be writing it in place, IP1). Versions are keyed by a run's first page (PT5): pages
//      are resolved in increasing order, each version written over what the lower ones wrote,
//      and a run's bytes past a chunk's end are carried into the next chunk.
// BK6. a page's table lookup comes BEFORE its raw read, and a version seen by the lookup is
//      looked up again after the raw read: a page without a version <= S at the first lookup
//      cannot get one, so the flusher never writes it while S is held, and the raw read is
//      stable; a version that the flusher removed in between (PT4: only after the data file
//      holds it, synced) is read again from the data file, which now holds it for good. A raw
//      read torn by a concurrent flush is never kept.
// BK7. writers never wait on a backup: taking the snapshot is BeginRead (the readers' lock,
//      held for a dictionary update); the copy reads the page table without locks (PT1). What
//      the held snapshot costs is that of any long reader (docs/core.md, "Long readers").
// BK10. a sealed store's backup holds sealed pages only (SL9): the data file's bytes are copied as
//      they are, and each page-table version is sealed (a copy, with a nonce of its own) before it
//      is written; the copy keeps the salt, so the same pages subkey opens both (SL2).

/// <summary>Writes a backup (BK1..BK7, BK10) of a store into a directory.</summary>
internal static class SnapshotCopy
{
    private const int ChunkPages = 256; // 2 MiB per write

    public static BackupResult Run(StorageEnvironment environment, string destination, BackupOptions options, CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        var fileSystem = environment.FileSystem;
        var meter = new CopyMeter(options.Progress, options.MaxBytesPerSecond, cancellationToken);
        var marker = BackupManifest.FileName + ".partial";
        if (fileSystem.FileExists(BackupManifest.PathIn(destination)))
        {
            throw new IOException($"'{destination}' already holds a backup ({BackupManifest.FileName}); a backup never writes over another. Give a new directory.");
        }

        var directory = CopyDirectory.Prepare(fileSystem, destination, marker, "backup");
        try
        {
            var pause = Stopwatch.StartNew();
            BackupManifest manifest;
            long pages;
            using (var snapshot = environment.BeginRead()) // BK5, BK7
            {
                pause.Stop();
                var committed = snapshot.Low.Committed;
                var sourceStoreId = environment.StoreId;
                var commitTime = SnapshotCommitTime(environment, committed); // BM5
                if (options.Compact)
                {
                    meter.Phase("copy", 0);
                    pages = Compaction.CompactingCopy.Write(snapshot, fileSystem, destination, meter, allowedFile: marker,
                        sealingKey: environment.Options.SealingKey); // a sealed store's compacted backup is sealed, under a salt of its own
                    var copyHeader = HeaderFile.ReadNewest(fileSystem, directory.Layout) ??
                        throw new InvalidOperationException($"The compacting copy in '{destination}' wrote no header.");
                    manifest = new BackupManifest(sourceStoreId, committed.TxId, committed.JournalEnd.FileNumber, committed.JournalEnd.Offset,
                        copyHeader.StoreId, pages, 0, commitTime, Compacted: true);
                }
                else
                {
                    pages = committed.State.NextPageNumber;
                    meter.Phase("copy", pages);
                    CopyPages(environment, committed.TxId, pages, fileSystem, directory.Layout.DataFile, meter);
                    var copyStoreId = directory.WriteHeaders(committed.TxId, committed.State, FirstJournalFileAfter(environment), // BK9
                        environment.Seal, environment.Options.SealingKey);
                    manifest = new BackupManifest(sourceStoreId, committed.TxId, committed.JournalEnd.FileNumber, committed.JournalEnd.Offset,
                        copyStoreId, pages, 0, commitTime, Compacted: false);
                }
            }

            if (options.Verify)
            {
                directory.Verify(meter, pages, environment.Options.MaxDataFileSize, environment.Options.SealingKey);
                DeleteVerifyJournal(fileSystem, directory);
            }

            // BK1: the commit point. Everything above is durable; now the manifest.
            var path = BackupManifest.PathIn(destination);
            using (var file = fileSystem.Open(directory.Marker, FileOpenMode.OpenOrCreate))
            {
                manifest = manifest with { CreatedUnixMs = environment.Options.Clock.GetUtcNow().ToUnixTimeMilliseconds() };
                file.SetLength(0);
                file.Write(0, manifest.Encode());
                file.FlushData();
            }

            meter.Advance(0, BackupManifest.Size); // last chance to cancel before the name is final
            fileSystem.MoveFile(directory.Marker, path);
            directory.SyncDirectories();
            meter.Finish();
            return new BackupResult(destination, manifest.SnapshotTxId, pages, meter.BytesWritten, clock.Elapsed, pause.Elapsed, options.Compact);
        }
        catch
        {
            if (!fileSystem.FileExists(BackupManifest.PathIn(destination)))
            {
                directory.Abandon();
            }

            throw;
        }
    }

    /// <summary>BK5, BK6: pages [0, <paramref name="pages"/>) as of <paramref name="snapshot"/> into <paramref name="path"/>, synced.</summary>
    private static void CopyPages(StorageEnvironment environment, long snapshot, long pages, IFileSystem fileSystem, string path, CopyMeter meter)
    {
        var table = environment.PageTable;
        var buffer = new byte[ChunkPages * Constants.PageSize];
        var versioned = new List<int>();
        var carries = new List<(long Start, byte[] Bytes)>(); // runs begun in an earlier chunk
        using var file = fileSystem.Open(path, FileOpenMode.CreateNew);
        for (long first = 0; first < pages; first += ChunkPages)
        {
            var count = (int)Math.Min(ChunkPages, pages - first);
            var chunk = buffer.AsSpan(0, count * Constants.PageSize);
            versioned.Clear();
            for (var i = 0; i < count; i++)
            {
                if (table.TryGet(first + i, snapshot, out _))
                {
                    versioned.Add(i); // BK6: looked up before the raw read
                }
            }

            environment.Pager.ReadRaw(first, chunk);
            ApplyCarries(carries, first, count, chunk);
            foreach (var i in versioned)
            {
                var page = first + i;
                var room = (count - i) * Constants.PageSize;
                if (table.TryGet(page, snapshot, out var version))
                {
                    var bytes = environment.Pager.SealedPages is { } sealedPages ? sealedPages.ForCopy(page, version) : version; // BK10
                    var fit = Math.Min(bytes.Length, room);
                    bytes[..fit].CopyTo(chunk[(i * Constants.PageSize)..]);
                    if (bytes.Length > fit)
                    {
                        carries.Add((first + count, bytes[fit..].ToArray()));
                    }
                }
                else
                {
                    environment.Pager.ReadRaw(page, chunk.Slice(i * Constants.PageSize, Constants.PageSize)); // BK6: flushed meanwhile
                }
            }

            file.Write(first * Constants.PageSize, chunk);
            meter.Advance(count, chunk.Length);
        }

        file.FlushData();
    }

    /// <summary>Writes the parts of earlier chunks' runs that fall in this chunk; drops those that end here.</summary>
    private static void ApplyCarries(List<(long Start, byte[] Bytes)> carries, long first, int count, Span<byte> chunk)
    {
        for (var k = 0; k < carries.Count; k++)
        {
            var (start, bytes) = carries[k];
            var offset = (start - first) * Constants.PageSize; // 0: every carry starts at this chunk
            var fit = (int)Math.Min(bytes.Length, (count * Constants.PageSize) - offset);
            bytes.AsSpan(0, fit).CopyTo(chunk[(int)offset..]);
            carries[k] = (first + count, bytes[fit..]);
        }

        carries.RemoveAll(c => c.Bytes.Length == 0);
    }

    /// <summary>
    /// BM5: when the snapshot's transaction committed: known from its commit, or from recovery when
    /// the open replayed its record; else read from that record in the live journal, which holds
    /// it while the snapshot is held (it ends at the snapshot's journal end, in a file the flusher
    /// cannot release before the header moves past it: J6). 0 when no record of it exists (a store
    /// made by a copy, a restore or a compaction, opened with nothing committed since).
    /// </summary>
    private static long SnapshotCommitTime(StorageEnvironment environment, Transactions.CommittedState committed) =>
        committed.CommitTime > 0
            ? committed.CommitTime
            : Journal.JournalReader.FindCommitTime(environment.FileSystem, environment.Layout.JournalDirectory, environment.StoreId, committed.JournalEnd, committed.TxId);

    /// <summary>BK9: a journal file number past the source's current file and every file in its archive directory.</summary>
    internal static long FirstJournalFileAfter(StorageEnvironment environment) =>
        Journal.JournalFiles.NumberPast(environment.FileSystem, environment.Options.JournalArchiveDirectory, environment.Journal.CurrentFileNumber);

    /// <summary>The verification's open made the copy's first journal file; a backup holds none (nothing to replay).</summary>
    private static void DeleteVerifyJournal(IFileSystem fileSystem, CopyDirectory directory)
    {
        foreach (var number in Journal.JournalFiles.List(fileSystem, directory.Layout.JournalDirectory))
        {
            fileSystem.DeleteFile(Journal.JournalFiles.PathOf(directory.Layout.JournalDirectory, number));
        }

        fileSystem.SyncDirectory(directory.Layout.JournalDirectory);
    }
}
