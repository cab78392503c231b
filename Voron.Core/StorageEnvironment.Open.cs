using Voron.Allocation;
using Voron.Files;
using Voron.Journal;
using Voron.Journal.Diff;
using Voron.Paging;
using Voron.Platform;
using Voron.Transactions;

namespace Voron;

public sealed partial class StorageEnvironment
{
    // Open algorithm:
    //   1. create the directory (owner only) and take the exclusive lock (voron.lock)
    //   2. read the newest valid header copy (Files/HeaderFile.cs); none at all = a new store:
    //      write the data file's identity page, sync it, write header revision 1, sync the directory
    //   3. map the data file and check its identity page (format version)
    //   4. recovery: replay journal records after the header's synced point, in order, writing
    //      their pages into the data file (Journal/JournalReader.cs decides torn tail vs corruption)
    //   5. if anything was replayed: sync the data file, then write the next header copy, so the
    //      replayed journal is no longer needed
    //   6. resume the journal after the last valid record, load the free-space digest

    private static StorageEnvironment OpenCore(StorageEnvironmentOptions options)
    {
        var fileSystem = options.FileSystem;
        var layout = new StoreLayout(options.Directory);
        fileSystem.CreateDirectory(layout.Directory);
        var storeLock = fileSystem.LockExclusive(layout.LockFile);
        Pager? pager = null;
        JournalWriter? journal = null;
        try
        {
            var header = HeaderFile.ReadNewest(fileSystem, layout, out var headerCopies) ?? CreateStore(fileSystem, layout, headerCopies);
            if (!fileSystem.FileExists(layout.DataFile))
            {
                RecreateMissingDataFile(fileSystem, layout, header);
            }

            pager = new Pager(fileSystem.Open(layout.DataFile, FileOpenMode.OpenExisting), options.MaxDataFileSize);
            DataFileIdentity.Validate(pager.ReadIdentityPage(), layout.DataFile);

            // Write-ahead during recovery too: records a lazy-mode process left in the OS cache
            // become durable before any of them reaches the data file.
            foreach (var number in JournalFiles.List(fileSystem, layout.JournalDirectory))
            {
                using var journalFile = fileSystem.Open(JournalFiles.PathOf(layout.JournalDirectory, number), FileOpenMode.OpenExisting);
                journalFile.FlushData();
            }

            // A header copy created by a flush whose directory sync failed (and whose failure a
            // dispose swallowed) gets a durable name now, before anything relies on it again.
            fileSystem.SyncDirectory(layout.Directory);
            var (recovered, end) = Recover(fileSystem, layout, pager, header);
            if (recovered.LastSyncedTxId != header.LastSyncedTxId)
            {
                pager.Sync();
                HeaderFile.Write(fileSystem, layout, recovered);
                header = recovered;
            }
            else if (JournalFiles.List(fileSystem, layout.JournalDirectory).Any(n => n < header.JournalFile))
            {
                // Journal files are about to be released on the strength of this header: make it
                // durable ourselves first. A header read back may be a cached copy whose fsync
                // failed in an earlier process (fsyncgate) and that a power loss would undo.
                header = header with { Revision = header.Revision + 1 };
                HeaderFile.Write(fileSystem, layout, header);
            }

            ClearAfterEnd(fileSystem, layout, end);
            journal = new JournalWriter(fileSystem, layout.JournalDirectory, end, header.LastSyncedTxId + 1, options.JournalFileSize);
            // J6: only files before the durable header's recovery start may go — not every file
            // before the end of the log, which may lie in a later file than the header names.
            journal.ReleaseBefore(new JournalPosition(header.JournalFile, header.JournalOffset));
            var committed = new CommittedState(header.LastSyncedTxId, header.State, FreeSpaceSummary.Empty, end);
            var environment = new StorageEnvironment(options, storeLock, pager, journal, committed, header);
            environment.LoadFreeSpace();
            Diagnostics.VoronMetrics.Track(environment);
            return environment;
        }
        catch
        {
            journal?.Dispose();
            pager?.Dispose();
            storeLock.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Creates a new store — or finishes creating one a crash interrupted: with no valid header,
    /// a store that holds nothing yet (no journal file, a data file of at most its identity page)
    /// is created again; anything more is someone's data and is refused.
    /// </summary>
    /// <summary>
    /// Zeroes (and syncs) the rest of the journal file after the end of the log. In lazy mode a
    /// power loss can keep record N + 1 but not N; recovery ends the log before N, and without this
    /// the stale N + 1 could later sit right after a new record N of the same size and be replayed
    /// as its successor. Costs one write of the file's unused tail per open.
    /// </summary>
    private static void ClearAfterEnd(IFileSystem fileSystem, StoreLayout layout, JournalPosition end)
    {
        var path = JournalFiles.PathOf(layout.JournalDirectory, end.FileNumber);
        if (!fileSystem.FileExists(path))
        {
            return;
        }

        using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
        var zeros = new byte[1 << 20];
        var chunk = new byte[1 << 20];
        var any = false;
        for (var offset = end.Offset; offset < file.Length && !any; offset += chunk.Length)
        {
            var read = file.Read(offset, chunk);
            any = chunk.AsSpan(0, read).ContainsAnyExcept((byte)0);
        }

        if (!any)
        {
            return; // nothing but zeros after the end: the common case costs reads of zeros only
        }

        for (var offset = end.Offset; offset < file.Length; offset += zeros.Length)
        {
            file.Write(offset, zeros.AsSpan(0, (int)Math.Min(zeros.Length, file.Length - offset)));
        }

        file.FlushData();
    }

    private static HeaderRecord CreateStore(IFileSystem fileSystem, StoreLayout layout, int headerCopies)
    {
        var what = headerCopies == 0 ? "both header files (headers.one, headers.two) are missing" : "neither header copy (headers.one, headers.two) is valid (rules H1/H2)";
        if (fileSystem.FileExists(layout.DataFile))
        {
            using var existing = fileSystem.Open(layout.DataFile, FileOpenMode.OpenExisting);
            if (existing.Length > Constants.PageSize)
            {
                throw new CorruptionException(headerCopies == 0 ? layout.DataFile : layout.HeaderFile(1), 0,
                    $"the data file holds data but {what}; refusing to create a new store over it");
            }
        }

        if (fileSystem.ListFiles(layout.JournalDirectory, "*.journal").Count > 0)
        {
            throw new CorruptionException(headerCopies == 0 ? layout.JournalDirectory : layout.HeaderFile(1), 0,
                $"journal files exist but {what}; the store cannot be opened");
        }

        using (var data = fileSystem.Open(layout.DataFile, FileOpenMode.OpenOrCreate))
        {
            data.SetLength(0);
            data.Write(0, DataFileIdentity.Create());
            data.FlushData();
        }

        fileSystem.CreateDirectory(layout.JournalDirectory);
        fileSystem.SyncDirectory(layout.Directory); // voron.data and journal/ are durable before the header names them
        var header = new HeaderRecord(1, 0, 1, 0, EnvironmentState.Empty); // journal file 1, offset 0
        foreach (var path in new[] { layout.HeaderFile(1), layout.HeaderFile(2) })
        {
            fileSystem.DeleteFile(path); // a torn copy from an interrupted creation
        }

        HeaderFile.Write(fileSystem, layout, header); // syncs the directory: the header's name is durable
        var parent = System.IO.Path.GetDirectoryName(layout.Directory);
        if (!string.IsNullOrEmpty(parent))
        {
            fileSystem.SyncDirectory(parent); // the store directory itself is durable (F2)
        }

        return header;
    }

    /// <summary>
    /// A valid header without a data file: when no transaction was ever synced to it (a crash
    /// during creation on a file system that reorders directory changes), everything committed is
    /// still in the journal, so the identity page is written again and recovery replays the rest;
    /// otherwise the data file is lost, which no recovery can repair.
    /// </summary>
    private static void RecreateMissingDataFile(IFileSystem fileSystem, StoreLayout layout, HeaderRecord header)
    {
        if (header.LastSyncedTxId != 0)
        {
            throw new CorruptionException(layout.DataFile, 0, $"the data file is missing but the header says transaction {header.LastSyncedTxId} was synced to it");
        }

        using (var data = fileSystem.Open(layout.DataFile, FileOpenMode.OpenOrCreate))
        {
            data.SetLength(0);
            data.Write(0, DataFileIdentity.Create());
            data.FlushData();
        }

        fileSystem.SyncDirectory(layout.Directory);
    }

    /// <summary>Replays the journal after the header's synced point into the data file.</summary>
    private static (HeaderRecord Header, JournalPosition End) Recover(IFileSystem fileSystem, StoreLayout layout, Pager pager, HeaderRecord header)
    {
        var state = header.State;
        var result = JournalReader.Recover(fileSystem, layout.JournalDirectory,
            new JournalPosition(header.JournalFile, header.JournalOffset), header.LastSyncedTxId + 1,
            record =>
            {
                var file = JournalFiles.PathOf(layout.JournalDirectory, record.Start.FileNumber);
                foreach (var page in record.Pages)
                {
                    ReplayPage(pager, page, file, record.Start.Offset, record.TransactionId);
                }

                state = EnvironmentState.ReadFrom(record.State.Span, JournalFiles.PathOf(layout.JournalDirectory, record.Start.FileNumber), record.Start.Offset);
            });
        if (result.LastTransactionId == header.LastSyncedTxId)
        {
            return (header, result.End);
        }

        return (new HeaderRecord(header.Revision + 1, result.LastTransactionId, result.End.FileNumber, result.End.Offset, state), result.End);
    }

    /// <summary>
    /// Applies one journal entry to the data file: a full image is written as is; a diff against
    /// zeros is applied to a zeroed page; a diff against the previous version is applied on top of
    /// the page as the data file holds it now (an older, newer or sector-mixed version of it — the
    /// diffs replayed in order repair all three, DESIGN.md section 6).
    /// </summary>
    private static void ReplayPage(Pager pager, RecoveredPage page, string file, long offset, long txId)
    {
        if (page.Encoding == JournalPageEncoding.FullImage)
        {
            pager.WritePage(page.PageNumber, page.Bytes.Span);
            return;
        }

        var image = new byte[checked(page.PageCount * Constants.PageSize)];
        if (page.Encoding == JournalPageEncoding.DiffAgainstPrevious)
        {
            pager.ReadRaw(page.PageNumber, image);
        }

        try
        {
            PageDiff.Apply(page.Bytes.Span, image);
        }
        catch (InvalidDataException e)
        {
            throw new CorruptionException(file, offset, $"R9: the diff of page {page.PageNumber} in record tx {txId} is malformed: {e.Message}");
        }

        pager.WritePage(page.PageNumber, image);
    }

    private void LoadFreeSpace()
    {
        var committed = _committed;
        var reader = new LowLevelTransaction(this, committed, writable: false);
        var summary = FreeSpaceSummary.Load(reader, committed.State.FreeSpaceRoot, committed.State.NextPageNumber);
        _committed = committed with { FreeSpace = summary };
    }
}
