using System.Diagnostics;
using Voron.Header;
using Voron.Journal;
using Voron.Paging;
using Voron.Platform;

namespace Voron.Backup;

// Restore (StorageEnvironment.RestoreAsync): a backup's data file, plus the source's archived
// journal replayed on top of it up to a target, into a new store.
//
// JA5. replay starts at the manifest's journal position expecting transaction S + 1, reads the
//      archive with the SOURCE store id in Strict mode (a torn or damaged record is corruption:
//      every archived record was durable and released, JA1), applies pages as recovery does
//      (StorageEnvironment.ReplayPage), and stops after ToTransactionId or before the first
//      record whose commit time is after ToTime.
// JA6. the archive must hold, from the manifest's journal file on, a run of consecutive file
//      numbers: a missing number is an error naming it, never the end of the log; the first
//      record of the first file must verify with the source's id (else it is another store's
//      archive); a target transaction beyond the last archived record is an error saying where
//      the archive ends. A compacted backup (new page numbers) is refused with an archive.
// BK8. the restored store is a new store (BK4) holding the last replayed transaction (or S):
//      its data file synced, then its header pair, then verified by opening it; the marker
//      voron.restore.partial is deleted last. A directory that still holds the marker is a
//      restore that did not complete: delete it and restore again.

/// <summary>Restores a backup, replaying archived journal files (JA5, JA6, BK8 above).</summary>
internal static class PointInTimeRestore
{
    public const string Marker = "voron.restore.partial";
    private const int ChunkPages = 256;

    public static RestoreResult Run(IFileSystem fileSystem, string backupDirectory, string destination, RestoreOptions options, long maxDataFileSize,
        CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        var meter = new CopyMeter(options.Progress, null, cancellationToken);
        var manifest = BackupManifest.Read(fileSystem, backupDirectory);
        var archive = options.JournalArchiveDirectory;
        CheckTarget(manifest, options);
        var backupLayout = new StoreLayout(backupDirectory);
        var backupHeader = HeaderFile.ReadNewest(fileSystem, backupLayout) ??
            throw new CorruptionException(backupLayout.HeaderFile(1), 0, "the backup has a manifest but no valid header copy: the backup is damaged");
        if (backupHeader.StoreId != manifest.CopyStoreId || backupHeader.LastSyncedTxId != manifest.SnapshotTxId)
        {
            throw new CorruptionException(backupLayout.HeaderFile(backupHeader.Revision), 0,
                $"the backup's header (store {backupHeader.StoreId:X16}, transaction {backupHeader.LastSyncedTxId}) is not the one its manifest names " +
                $"(store {manifest.CopyStoreId:X16}, transaction {manifest.SnapshotTxId}): the backup is damaged or mixed with another");
        }

        var directory = CopyDirectory.Prepare(fileSystem, destination, Marker, "restore");
        try
        {
            CopyDataFile(fileSystem, backupLayout.DataFile, directory.Layout.DataFile, manifest.Pages, meter);
            var last = manifest.SnapshotTxId;
            var state = backupHeader.State;
            long? commitTime = null;
            long replayed = 0;
            long journalBytes = 0;
            if (archive != null)
            {
                (last, state, commitTime, replayed, journalBytes) = Replay(fileSystem, archive, directory.Layout.DataFile, manifest, backupHeader.State, options, maxDataFileSize, meter);
            }

            // BK9: past the source's journal files the manifest names and the archive holds, so the
            // restored store may archive to the same directory without reusing a number (JA4).
            directory.WriteHeaders(last, state, JournalFiles.NumberPast(fileSystem, archive, manifest.JournalFile));
            directory.Verify(meter, state.NextPageNumber, maxDataFileSize);
            fileSystem.DeleteFile(directory.Marker); // BK8: the restore is complete
            directory.SyncDirectories();
            meter.Finish();
            return new RestoreResult(destination, last, commitTime is > 0 ? DateTimeOffset.FromUnixTimeMilliseconds(commitTime.Value) : null,
                replayed, journalBytes, clock.Elapsed);
        }
        catch
        {
            directory.Abandon();
            throw;
        }
    }

    private static void CheckTarget(BackupManifest manifest, RestoreOptions options)
    {
        if (options.JournalArchiveDirectory != null && manifest.Compacted)
        {
            throw new InvalidOperationException(
                "This backup is compacted (BackupOptions.Compact): its pages have new numbers, so the source's archived journal cannot be replayed " +
                "onto it. Restore it without JournalArchiveDirectory, or restore from a plain (not compacted) backup.");
        }

        if (options.ToTransactionId is { } target)
        {
            if (target < manifest.SnapshotTxId)
            {
                throw new ArgumentOutOfRangeException(nameof(options), target,
                    $"The target transaction {target} is before the backup's snapshot (transaction {manifest.SnapshotTxId}); restore from an older backup.");
            }

            if (target > manifest.SnapshotTxId && options.JournalArchiveDirectory == null)
            {
                throw new ArgumentException(
                    $"The backup holds transaction {manifest.SnapshotTxId}; restoring to {target} needs the journal archive (RestoreOptions.JournalArchiveDirectory).",
                    nameof(options));
            }
        }
    }

    private static void CopyDataFile(IFileSystem fileSystem, string source, string destination, long pages, CopyMeter meter)
    {
        meter.Phase("copy", pages);
        using var from = fileSystem.Open(source, FileOpenMode.OpenExisting);
        if (from.Length < pages * Constants.PageSize)
        {
            throw new CorruptionException(source, from.Length,
                $"the backup's data file has {from.Length:N0} bytes, fewer than the {pages:N0} pages its manifest names: the backup is damaged");
        }

        using var to = fileSystem.Open(destination, FileOpenMode.CreateNew);
        var buffer = new byte[ChunkPages * Constants.PageSize];
        for (long first = 0; first < pages; first += ChunkPages)
        {
            var count = (int)Math.Min(ChunkPages, pages - first);
            var chunk = buffer.AsSpan(0, count * Constants.PageSize);
            if (from.Read(first * Constants.PageSize, chunk) != chunk.Length)
            {
                throw new CorruptionException(source, first * Constants.PageSize, "the backup's data file shrank while it was read");
            }

            to.Write(first * Constants.PageSize, chunk);
            meter.Advance(count, chunk.Length);
        }

        to.FlushData();
    }

    private static (long Last, EnvironmentState State, long? CommitTime, long Replayed, long Bytes) Replay(IFileSystem fileSystem, string archive, string dataFile,
        BackupManifest manifest, EnvironmentState state, RestoreOptions options, long maxDataFileSize, CopyMeter meter)
    {
        var numbers = CheckSequence(fileSystem, archive, manifest);
        long total = 0;
        foreach (var number in numbers)
        {
            using var file = fileSystem.Open(JournalFiles.PathOf(archive, number), FileOpenMode.OpenExisting);
            total += file.Length;
        }

        meter.Phase("replay", total);
        var last = manifest.SnapshotTxId;
        long? commitTime = null;
        long replayed = 0;
        long bytes = 0;
        if (numbers.Count > 0)
        {
            using var pager = new Pager(fileSystem.Open(dataFile, FileOpenMode.OpenExisting), maxDataFileSize);
            byte[] image = [];
            var toTime = options.ToTime?.ToUnixTimeMilliseconds();
            var result = JournalReader.Recover(fileSystem, archive, manifest.SourceStoreId, new JournalPosition(manifest.JournalFile, manifest.JournalOffset),
                manifest.SnapshotTxId + 1,
                record =>
                {
                    var path = JournalFiles.PathOf(archive, record.Start.FileNumber);
                    var recordState = EnvironmentState.ReadFrom(record.State.Span, path, record.Start.Offset);
                    pager.EnsurePageCount(recordState.NextPageNumber);
                    foreach (var page in record.Pages)
                    {
                        StorageEnvironment.ReplayPage(pager, page, recordState, ref image, path, record.Start.Offset, record.TransactionId);
                    }

                    pager.Views.ReleaseAll(); // MV1: replay reads and writes through the file, never the mapping

                    state = recordState;
                    commitTime = record.CommitTime;
                    replayed++;
                    var size = record.End.Offset - record.Start.Offset;
                    bytes += size;
                    meter.Advance(size, 0);
                },
                JournalTailRecovery.Strict,
                record => record.TransactionId > options.ToTransactionId || record.CommitTime > toTime); // JA5
            last = result.LastTransactionId;
            pager.Sync();
        }

        if (options.ToTransactionId is { } target && last < target)
        {
            throw new InvalidOperationException(
                $"The journal archive '{archive}' ends at transaction {last}; the target transaction {target} is beyond it. Its newest transactions " +
                "are still in the store's live journal until their file is released (JA1); restore to at most transaction " + last + ".");
        }

        return (last, state, commitTime, replayed, bytes);
    }

    /// <summary>JA6: the archived files from the manifest's journal file on, consecutive, the first one this store's.</summary>
    private static List<long> CheckSequence(IFileSystem fileSystem, string archive, BackupManifest manifest)
    {
        var numbers = JournalFiles.List(fileSystem, archive).Where(n => n >= manifest.JournalFile).ToList();
        for (var i = 0; i < numbers.Count; i++)
        {
            var expected = manifest.JournalFile + i;
            if (numbers[i] != expected)
            {
                throw new CorruptionException(JournalFiles.PathOf(archive, expected), 0,
                    $"journal file {expected} is missing from the archive, which holds {(i == 0 ? "no earlier file from the backup's start" : $"file {expected - 1}")} " +
                    $"and file {numbers[i]}: the transactions in it cannot be replayed and the sequence has a gap. Put the file back, or restore to a " +
                    $"transaction before it (the archive is complete up to file {expected - 1}).");
            }
        }

        if (numbers.Count > 0)
        {
            var path = JournalFiles.PathOf(archive, numbers[0]);
            using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
            var sector = new byte[JournalRecord.SectorSize];
            if (file.Read(0, sector) == sector.Length && sector.AsSpan().ContainsAnyExcept((byte)0) &&
                !JournalRecordHeader.TryRead(sector, new RecordBinding(manifest.SourceStoreId, numbers[0]), out _))
            {
                throw new CorruptionException(path, 0,
                    $"the archived journal file's first record does not verify with the id of the store the backup was taken from ({manifest.SourceStoreId:X16}): " +
                    "the archive belongs to another store (or the file is damaged). Point JournalArchiveDirectory at this store's archive.");
            }
        }

        return numbers;
    }
}
