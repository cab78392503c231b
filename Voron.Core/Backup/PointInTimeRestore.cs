using System.Diagnostics;
using Voron.Header;
using Voron.Journal;
using Voron.Paging;
using Voron.Platform;
using Voron.Sealing;

namespace Voron.Backup;

// Restore (StorageEnvironment.RestoreAsync): a backup's data file, plus the source's archived
// journal replayed on top of it up to a target, into a new store.
//
// JA5. replay starts at the manifest's journal position expecting transaction S + 1, reads the
//      archive with the SOURCE store id in Strict mode (a torn or damaged record is corruption:
//      every archived record was durable and released, JA1), applies pages as recovery does
//      (StorageEnvironment.ReplayPage), and stops after ToTransactionId or before the first
//      record committed after ToTime. It reads only the source's files: from the manifest's file
//      on, up to the first number missing, and never past the source's last file when the
//      archive holds a compaction note for the source (JA9).
// JA6. the first record of the first file must verify with the source's id (else it is another
//      store's archive); a compacted backup (new page numbers) is refused with an archive. A
//      target is reached or refused, never cut short in silence: a target the replay did not
//      reach is an error naming what ends the source's log in the archive — a missing file
//      (file n missing while a later file of the source is there, or while the compaction note
//      names a later last file), the compaction (JA9), or the archive's end (the newest
//      transactions are in the live journal until their file is released, JA1). A missing file
//      past the target is no error: the restore never reads it. Without a target the restore
//      goes as far as the source's log goes, and refuses a missing file as a target past it.
// JA9. compaction with an archive archives the old store's journal files, the live one
//      included, and writes the compaction note (Journal/ArchivedCompaction.cs) before the swap
//      deletes them (CompactionSwap, CP4). A backup taken before the compaction replays up to the
//      note's transaction T, and must reach it when asked to go past its last record (falling
//      short: the note's last file was cut, a CorruptionException naming it); a target after T
//      is refused naming the compaction: the compacted store renumbered its pages and binds its
//      records to its new id, so only a backup taken after the compaction restores past T.
// JA10. a time target t (ToTime) needs the archive, and reads commit times as growing with the
//      transaction id (the writer keeps them so: JournalRecord.cs, CommitTime):
//      - t before the snapshot's commit time (the manifest's, BM5; when that is 0, record S's in
//        the archive, or for a compacted store's backup with no commit since, the compaction's
//        time in its note) is refused as an id before the snapshot is; when none says, t is
//        taken as after it only if the first archived transaction after S committed by t;
//      - the replay must find a record committed after t and stop before it: reaching the end of
//        the source's log first is refused as in JA6 (what was committed by t may be in a missing
//        file or the live journal), except at a compaction (JA9) when t is before the note's time
//        or before the compacted store's first archived transaction (nothing committed between);
//      - a record without a commit time (0: written by an earlier build) cannot be placed before
//        or after t: refused, restore to a transaction id instead.
// BK8. the restored store is a new store (BK4) holding the last replayed transaction (or S):
//      its data file synced, then its header pair, then verified by opening it; the marker
//      voron.restore.partial is deleted last. A directory that still holds the marker is a
//      restore that did not complete: delete it and restore again.

/// <summary>Restores a backup, replaying archived journal files (JA5, JA6, JA9, JA10, BK8 above).</summary>
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

        // SL5: a sealed backup needs its key, an unsealed one refuses a key, before anything is written.
        StorageEnvironment.DeriveStoreKey(backupHeader, options.SealingKey, backupDirectory)?.Dispose();
        var directory = CopyDirectory.Prepare(fileSystem, destination, Marker, "restore");
        try
        {
            CopyDataFile(fileSystem, backupLayout.DataFile, directory.Layout.DataFile, manifest.Pages, meter);
            var replay = new Replayed(manifest.SnapshotTxId, backupHeader.State, manifest.SnapshotCommitTime, 0, 0);
            if (archive != null)
            {
                replay = Replay(fileSystem, archive, directory.Layout.DataFile, manifest, backupHeader, options, maxDataFileSize, meter);
            }

            // BK9: past the source's journal files the manifest names and the archive holds, so the
            // restored store may archive to the same directory without reusing a number (JA4).
            directory.WriteHeaders(replay.Last, replay.State, JournalFiles.NumberPast(fileSystem, archive, manifest.JournalFile), backupHeader.Seal,
                options.SealingKey);
            directory.Verify(meter, replay.State.NextPageNumber, maxDataFileSize, options.SealingKey);
            fileSystem.DeleteFile(directory.Marker); // BK8: the restore is complete
            directory.SyncDirectories();
            meter.Finish();
            return new RestoreResult(destination, replay.Last, replay.CommitTime > 0 ? DateTimeOffset.FromUnixTimeMilliseconds(replay.CommitTime) : null,
                replay.Count, replay.Bytes, clock.Elapsed);
        }
        catch
        {
            directory.Abandon();
            throw;
        }
    }

    /// <summary>What the replay reached: the last transaction, its state and commit time (0 = unknown), records and bytes replayed.</summary>
    private readonly record struct Replayed(long Last, EnvironmentState State, long CommitTime, long Count, long Bytes);

    /// <summary>The source's archived files a restore may read (JA5), the first number missing among them, and the compaction that ends them (JA9).</summary>
    private sealed record SourceLog(List<long> Files, long? Missing, ArchivedCompaction? Compaction, string Archive)
    {
        public string PathOf(long number) => JournalFiles.PathOf(Archive, number);
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

        if (options.ToTime is { } time)
        {
            if (manifest.SnapshotCommitTime > 0)
            {
                ThrowIfBeforeSnapshot(options, manifest.SnapshotTxId, manifest.SnapshotCommitTime); // JA10
            }

            if (options.JournalArchiveDirectory == null)
            {
                throw new ArgumentException(
                    $"The backup holds transaction {manifest.SnapshotTxId}; restoring to a time ({Format(time)}) needs the journal archive " +
                    "(RestoreOptions.JournalArchiveDirectory): only the archive says what the store committed after the backup's snapshot.",
                    nameof(options));
            }
        }
    }

    private static void ThrowIfBeforeSnapshot(RestoreOptions options, long snapshot, long snapshotCommitTime)
    {
        if (options.ToTime is { } time && time.ToUnixTimeMilliseconds() < snapshotCommitTime)
        {
            throw new ArgumentOutOfRangeException(nameof(options), time,
                $"The target time {Format(time)} is before the backup's snapshot (transaction {snapshot}, committed at {Format(snapshotCommitTime)}); " +
                "restore from an older backup.");
        }
    }

    private static string Format(DateTimeOffset time) => time.UtcDateTime.ToString("O", System.Globalization.CultureInfo.InvariantCulture);

    private static string Format(long unixMs) => Format(DateTimeOffset.FromUnixTimeMilliseconds(unixMs));

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

    private static Replayed Replay(IFileSystem fileSystem, string archive, string dataFile, BackupManifest manifest, HeaderRecord backupHeader,
        RestoreOptions options, long maxDataFileSize, CopyMeter meter)
    {
        var state = backupHeader.State;
        var log = FindSourceLog(fileSystem, archive, manifest);
        long total = 0;
        foreach (var number in log.Files)
        {
            using var file = fileSystem.Open(log.PathOf(number), FileOpenMode.OpenExisting);
            total += file.Length;
        }

        meter.Phase("replay", total);
        var last = manifest.SnapshotTxId;
        var commitTime = manifest.SnapshotCommitTime;
        long replayed = 0;
        long bytes = 0;
        long? firstCommitTime = null; // of record S + 1, applied or not (JA10)
        var stopped = false;
        var toTime = options.ToTime?.ToUnixTimeMilliseconds();
        if (log.Files.Count > 0 && !(toTime == null && options.ToTransactionId == manifest.SnapshotTxId))
        {
            // The source's records are sealed under its subkeys: the backup's salt (a copy keeps its source's, SL2) and the source's store id.
            using var sourceKey = backupHeader.Seal is { } seal ? StoreKey.Derive(options.SealingKey, seal.Salt, manifest.SourceStoreId, seal.Algorithm) : null;
            // Pages are sealed under the salt's pages subkey, the same for the source and every copy (SL2, PG7).
            using var pager = new Pager(fileSystem.Open(dataFile, FileOpenMode.OpenExisting), maxDataFileSize,
                sourceKey is null ? null : new SealedPages(sourceKey, 0));
            byte[] image = [];
            using var sealing = sourceKey is null ? null : new JournalSealing(sourceKey);
            var result = JournalReader.Recover(fileSystem, archive, manifest.SourceStoreId, new JournalPosition(manifest.JournalFile, manifest.JournalOffset),
                manifest.SnapshotTxId + 1,
                record =>
                {
                    var path = log.PathOf(record.Start.FileNumber);
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
                record =>
                {
                    firstCommitTime ??= record.CommitTime;
                    if (toTime != null && record.CommitTime == 0)
                    {
                        throw new InvalidOperationException(
                            $"Record tx {record.TransactionId} in '{log.PathOf(record.Start.FileNumber)}' has no commit time (written by an earlier Voron build), " +
                            $"so the target time {Format(options.ToTime!.Value)} cannot be placed before or after it (JA10). Restore to a transaction id " +
                            "(RestoreOptions.ToTransactionId) instead.");
                    }

                    stopped = record.TransactionId > options.ToTransactionId || record.CommitTime > toTime; // JA5
                    return stopped;
                },
                lastFileNumber: log.Files[^1],
                stopAfter: options.ToTime == null ? options.ToTransactionId ?? long.MaxValue : long.MaxValue, sealing: sealing);
            last = result.LastTransactionId;
            pager.Sync();
        }

        CheckReached(fileSystem, log, manifest, options, last, commitTime, stopped, firstCommitTime);
        return new Replayed(last, state, commitTime, replayed, bytes);
    }

    /// <summary>JA6, JA9, JA10: the replay reached the target (or, without one, the end of the source's log), or the restore is refused naming why.</summary>
    private static void CheckReached(IFileSystem fileSystem, SourceLog log, BackupManifest manifest, RestoreOptions options, long last, long lastCommitTime,
        bool stopped, long? firstCommitTime)
    {
        // With both bounds the replay stops at whichever comes first: reaching either is enough.
        var reached = stopped || options.ToTransactionId is { } target && last >= target;
        long snapshotTime = 0;
        if (options.ToTime is { } time)
        {
            snapshotTime = SnapshotCommitTime(fileSystem, log.Archive, manifest);
            if (snapshotTime > 0)
            {
                ThrowIfBeforeSnapshot(options, manifest.SnapshotTxId, snapshotTime);
            }

            reached = reached || NothingCommittedAfterCompactionBy(fileSystem, log, last, time.ToUnixTimeMilliseconds());
        }

        if (options.ToTransactionId != null || options.ToTime != null)
        {
            if (!reached)
            {
                var what = options.ToTransactionId is { } id ? $"the target transaction {id}" : $"the target time {Format(options.ToTime!.Value)}";
                throw NotReached(log, last, what, lastCommitTime);
            }
        }
        else if (log.Missing != null || log.Compaction is { } compaction && last < compaction.SourceTransaction)
        {
            throw NotReached(log, last, "the end of the source's log", lastCommitTime);
        }

        if (options.ToTime is { } asked && snapshotTime == 0 && !(firstCommitTime is > 0 && firstCommitTime <= asked.ToUnixTimeMilliseconds()))
        {
            throw new InvalidOperationException(
                $"The backup's manifest does not say when its snapshot (transaction {manifest.SnapshotTxId}) committed (a backup of a store with no commit " +
                "since it was made by a copy, a restore or a compaction, or a manifest written by an earlier build: BM5), and the archive holds no record of " +
                $"it; the first archived transaction after it committed after the target time {Format(asked)}, so whether the backup itself is later than " +
                "the target cannot be told (JA10). Restore to a later time, to a transaction id (RestoreOptions.ToTransactionId), or from an older backup.");
        }
    }

    /// <summary>
    /// JA10: when the backup's snapshot S committed, or at the latest came to be: the manifest's
    /// time (BM5); when that is 0 (unknown), record S's in the archive; else, for a backup of a
    /// compacted store taken before it committed anything, the time of the compaction that made
    /// S (its note, JA9). 0 when none says.
    /// </summary>
    private static long SnapshotCommitTime(IFileSystem fileSystem, string archive, BackupManifest manifest)
    {
        if (manifest.SnapshotCommitTime > 0)
        {
            return manifest.SnapshotCommitTime;
        }

        var recorded = JournalReader.FindCommitTime(fileSystem, archive, manifest.SourceStoreId, new JournalPosition(manifest.JournalFile, manifest.JournalOffset),
            manifest.SnapshotTxId);
        if (recorded > 0)
        {
            return recorded;
        }

        return ArchivedCompaction.List(fileSystem, archive).FirstOrDefault(n => n.CopyStoreId == manifest.SourceStoreId && n.CopyTransaction == manifest.SnapshotTxId)
            ?.CompactedUnixMs ?? 0;
    }

    /// <summary>JA9, JA10: the replay ended at the compaction (transaction T) and the compacted store committed nothing by <paramref name="t"/>.</summary>
    private static bool NothingCommittedAfterCompactionBy(IFileSystem fileSystem, SourceLog log, long last, long t)
    {
        if (log.Compaction is not { } compaction || log.Missing != null || last != compaction.SourceTransaction)
        {
            return false;
        }

        if (t < compaction.CompactedUnixMs)
        {
            return true;
        }

        var path = JournalFiles.PathOf(log.Archive, compaction.CopyFirstFile);
        if (!fileSystem.FileExists(path))
        {
            return false;
        }

        using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
        var sector = new byte[JournalRecord.SectorSize];
        return file.Read(0, sector) == sector.Length &&
            JournalRecordHeader.TryRead(sector, new RecordBinding(compaction.CopyStoreId, compaction.CopyFirstFile), out var first) &&
            first.TransactionId == compaction.CopyTransaction + 1 && first.CommitTime > t;
    }

    /// <summary>JA6, JA9: why the replay stopped before <paramref name="target"/>, as the exception to throw.</summary>
    private static Exception NotReached(SourceLog log, long last, string target, long lastCommitTime)
    {
        var committed = lastCommitTime > 0 ? $" (committed at {Format(lastCommitTime)})" : "";
        if (log.Missing is { } missing)
        {
            var later = log.Compaction is { } note && note.SourceLastFile >= missing
                ? $"the store's log goes on to file {note.SourceLastFile} (its compaction note says so)"
                : "a later file of the store is there";
            return new CorruptionException(log.PathOf(missing), 0,
                $"journal file {missing} is missing from the archive, and {later}: the transactions in it cannot be replayed, so {target} cannot be " +
                $"reached. Put the file back, or restore to at most transaction {last}{committed}, the last one before the gap.");
        }

        if (log.Compaction is { } cut && last < cut.SourceTransaction)
        {
            return new CorruptionException(log.PathOf(cut.SourceLastFile), 0,
                $"the source's archived journal ends at transaction {last}, but the compaction note '{Path.GetFileName(ArchivedCompaction.PathOf(log.Archive, cut.SourceLastFile))}' " +
                $"says its log went on to transaction {cut.SourceTransaction}, in this file: the file was cut short, so {target} cannot be reached. Put the " +
                $"whole file back, or restore to at most transaction {last}{committed}.");
        }

        if (log.Compaction is { } compaction)
        {
            return new InvalidOperationException(
                $"The store was compacted after transaction {compaction.SourceTransaction} (at {Format(compaction.CompactedUnixMs)}): the compacted store " +
                $"(id {compaction.CopyStoreId:X16}) renumbered its pages, so its journal cannot be replayed onto a backup taken before the compaction, and " +
                $"{target} lies past it (JA9). This backup restores to at most transaction {compaction.SourceTransaction}{committed}; to go further, restore " +
                "a backup taken after the compaction.");
        }

        return new InvalidOperationException(
            $"The journal archive '{log.Archive}' ends at transaction {last}{committed}; {target} is beyond it. Its newest transactions are still " +
            $"in the store's live journal until their file is released (JA1); restore to at most transaction {last}.");
    }

    /// <summary>JA5, JA6, JA9: the archived files of the backup's source, from its journal file on, consecutive; the first one the source's.</summary>
    private static SourceLog FindSourceLog(IFileSystem fileSystem, string archive, BackupManifest manifest)
    {
        var compaction = ArchivedCompaction.List(fileSystem, archive).FirstOrDefault(n => n.SourceStoreId == manifest.SourceStoreId);
        var limit = compaction?.SourceLastFile ?? long.MaxValue;
        var numbers = JournalFiles.List(fileSystem, archive).Where(n => n >= manifest.JournalFile && n <= limit).ToList();
        var files = new List<long>();
        foreach (var number in numbers)
        {
            if (number != manifest.JournalFile + files.Count)
            {
                break;
            }

            files.Add(number);
        }

        var next = manifest.JournalFile + files.Count;
        long? missing = numbers.Count > files.Count || (compaction != null && next <= compaction.SourceLastFile) ? next : null;
        if (files.Count > 0)
        {
            var path = JournalFiles.PathOf(archive, files[0]);
            using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
            var sector = new byte[JournalRecord.SectorSize];
            if (file.Read(0, sector) == sector.Length && sector.AsSpan().ContainsAnyExcept((byte)0) &&
                !JournalRecordHeader.TryRead(sector, new RecordBinding(manifest.SourceStoreId, files[0]), out _))
            {
                throw new CorruptionException(path, 0,
                    $"the archived journal file's first record does not verify with the id of the store the backup was taken from ({manifest.SourceStoreId:X16}): " +
                    "the archive belongs to another store (or the file is damaged). Point JournalArchiveDirectory at this store's archive.");
            }
        }

        return new SourceLog(files, missing, compaction, archive);
    }
}
