using System.Globalization;
using Voron.Journal;

namespace Voron.Archive;

// Shipping (StorageEnvironmentOptions.ArchiveDestination): the local journal archive directory
// stays the source of truth, and a background task uploads its finished files, in number order,
// to the destination (as Litestream does). Commits never wait for it.
//
//   loop (ShipLoopAsync)                         one pass (ShipPendingAsync, under _gate)
//   ----------------------------------------     ------------------------------------------------
//   pass; on success wait Interval, or less:     0. hold the writer's lease (LS1..LS3, ArchiveLease.cs)
//     a newly archived file wakes it (SH6)       1. position unknown: find it in the destination
//   on failure: Failures++, LastError, wait         (the lineage's last journal object, SH3)
//     min(Interval * 2^Failures, MaxBackoff)     2. for each local file numbered past it, in order:
//   until the store closes (cancelled)              read its records' range, upload it (AO3), then
//                                                   advance the position and the state file (SH4)
//
// SH1. shipping never blocks or fails a commit: the writer only archives locally (JA1..JA4); the
//      shipper reads the archive directory on its own task, one file at a time with 64 KiB
//      buffers (bounded memory whatever the file's size), and swallows every failure into the
//      status (LastError, ConsecutiveFailures) and the metrics, retrying with backoff.
// SH2. files are uploaded in number order, each after its predecessor is stored: the destination
//      holds a prefix of the lineage's log, and a journal object's Before is the After of the
//      object before it (AO1). A local file missing in the middle (pruned before it was shipped)
//      stops shipping with an error naming it: the chain is never broken in silence.
// SH3. every pass re-reads the position from the destination (one listing from the last known
//      file on): an object deleted from the end of the destination is uploaded again, and a stale
//      listing (AD4) only makes the shipper upload an object that is already there, which AO3
//      accepts as the same bytes (or refuses, when the listing was so stale that the chain it
//      implies differs: the pass fails and is retried). An object deleted from the middle is not
//      noticed: a restore stops at that gap and says so (OA2, JA6).
// SH4. the state file voron.shipped in the archive directory names the last file known shipped;
//      JournalArchive.Prune keeps every file after it (an unshipped file is never pruned).
// SH5. a file whose first record is not bound to this store (a compacted store's predecessor, the
//      store a restore came from) is not this lineage's: skipped while nothing is shipped yet,
//      an error (naming the file) after.
// SH6. a file archived by the journal (JournalWriter.Archived) wakes the loop at once when its last
//      pass succeeded, so a timely release (TR1..TR5) reaches the destination without waiting for
//      the next Interval; after a failure the backoff still holds (a wake does not cut it short).
// SH7. the last journal object found (SH3) whose listed length is not its header's 160 bytes plus
//      ContentLength (or that is shorter than a header) is an upload torn by a crash on a server
//      that keeps a partial body (s3rver does when the client dies mid-upload; AD1 asks whole or
//      nothing): it was never acknowledged to anyone, so it is deleted and uploaded again.
// SH8. a compacted store's hand-over (AK3): compaction gives the store a new id, so it ships under a
//      new lineage, and the old store's last journal files reach the local archive only at the swap
//      (JA9), after the old store closed. While nothing of its own lineage is shipped, a store whose
//      archive holds the compaction note naming it as the copy (ArchivedCompaction: CopyStoreId)
//      first ships the old lineage's files up to the note's SourceLastFile, under the old lineage
//      and its lease (LS8 gives the old store's own holder id, so the lease is taken back at once),
//      then records <new lineage>/fork with the old lineage as parent and SourceTransaction as the
//      fork transaction (OA3's note), and only then ships its own files. So the destination holds
//      the old lineage's log to its end (a restore reaches every transaction before the
//      compaction), and a replica of it applies that end and then stops at the fork (RE6) instead
//      of waiting for a lineage that no longer grows. A crash between the steps repeats them: the
//      uploads are the same bytes (AO3). Skipped when the destination holds nothing of the old
//      lineage (it never shipped: nothing follows it).

/// <summary>Uploads the local journal archive to an <see cref="IArchiveDestination"/> in the background (SH1..SH8 above).</summary>
internal sealed class ArchiveShipper : IAsyncDisposable
{
    private readonly IArchiveDestination _destination;
    private readonly string _archive;
    private readonly ulong _lineage;
    private readonly TimeSpan _interval;
    private readonly TimeSpan _maxBackoff;
    private readonly ArchiveLease _lease;
    private readonly TimeSpan? _leaseDuration;
    private readonly TimeProvider? _clock;
    private readonly long _untilFile; // SH8: a predecessor's hand-over ships files up to this one only
    private readonly SemaphoreSlim _gate = new(1, 1);
    private readonly SemaphoreSlim _wake = new(0, 1); // SH6
    private readonly CancellationTokenSource _stop = new();
    private Task? _loop;

    // Under _gate (written), read without it by Status (a torn read only shows an older status).
    private Position? _position;
    private long _lastShippedTransaction;
    private DateTimeOffset? _lastShippedAt;
    private int _failures;
    private string? _lastError;
    private long _uploadFailures;

    public ArchiveShipper(IArchiveDestination destination, string archiveDirectory, ulong lineage, TimeSpan interval, TimeSpan maxBackoff,
        TimeSpan? leaseDuration = null, TimeProvider? clock = null, long untilFile = long.MaxValue)
    {
        _lease = new ArchiveLease(destination, lineage, leaseDuration ?? TimeSpan.FromMinutes(1), clock ?? TimeProvider.System,
            ArchiveLease.HolderFor(archiveDirectory, lineage));
        _destination = destination;
        _archive = archiveDirectory;
        _lineage = lineage;
        _interval = interval;
        _maxBackoff = maxBackoff < interval ? interval : maxBackoff;
        _leaseDuration = leaseDuration;
        _clock = clock;
        _untilFile = untilFile;
    }

    /// <summary>The state file's name in the archive directory (SH4).</summary>
    public const string StateFileName = "voron.shipped";

    /// <summary>Uploads that failed since open (the metric).</summary>
    public long UploadFailures => Interlocked.Read(ref _uploadFailures);

    /// <summary>The last journal file number shipped and its object's After (AO1).</summary>
    private sealed record Position(long File, byte[] After);

    /// <summary>Starts the background passes; without it only <see cref="ShipPendingAsync"/> ships (tests).</summary>
    public void Start(bool background)
    {
        if (ReadState(_archive, _lineage) == null)
        {
            Directory.CreateDirectory(_archive);
            WriteState(_archive, _lineage, 0, 0); // SH4: from now on Prune keeps what is not shipped
        }

        if (background)
        {
            _loop = Task.Run(ShipLoopAsync);
        }
    }

    /// <summary>SH6: a file was archived; the next pass starts now unless the loop is backing off.</summary>
    public void Wake()
    {
        if (_wake.CurrentCount == 0)
        {
            try
            {
                _wake.Release();
            }
            catch (Exception e) when (e is SemaphoreFullException or ObjectDisposedException)
            {
                // A wake is already pending, or the shipper is gone: nothing to do.
            }
        }
    }

    /// <summary>What is shipped, what waits, and the last failure (SH1).</summary>
    public ArchiveShippingStatus Status
    {
        get
        {
            var shipped = _position?.File ?? ReadState(_archive, _lineage) ?? 0;
            var (pendingFiles, pendingBytes) = Pending(_archive, shipped);

            return new ArchiveShippingStatus(_destination.Description, ArchiveKeys.Lineage(_lineage), shipped, Interlocked.Read(ref _lastShippedTransaction),
                pendingFiles, pendingBytes, Volatile.Read(ref _failures), Volatile.Read(ref _lastError), _lastShippedAt)
            {
                Lease = _lease.State,
                LeaseHolder = _lease.HolderDescription,
            };
        }
    }

    /// <summary>One pass now (SH2): uploads every local file not yet shipped; throws what stopped it.</summary>
    public async Task<ArchiveShippingStatus> ShipPendingAsync(CancellationToken cancellationToken)
    {
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _stop.Token);
        await _gate.WaitAsync(linked.Token).ConfigureAwait(false);
        try
        {
            await ShipCoreAsync(linked.Token).ConfigureAwait(false);
            Volatile.Write(ref _failures, 0);
            Volatile.Write(ref _lastError, null);
        }
        catch (Exception e) when (e is not OperationCanceledException || !linked.IsCancellationRequested)
        {
            Interlocked.Increment(ref _uploadFailures);
            Volatile.Write(ref _failures, _failures + 1);
            Volatile.Write(ref _lastError, $"{DateTimeOffset.UtcNow:O}: {e.GetType().Name}: {e.Message}");
            throw;
        }
        finally
        {
            _gate.Release();
        }

        return Status;
    }

    private async Task ShipLoopAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            var delay = _interval;
            var failed = false;
            try
            {
                await ShipPendingAsync(_stop.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (_stop.IsCancellationRequested)
            {
                return;
            }
            catch (Exception)
            {
                // SH1: recorded in the status by ShipPendingAsync; retried after a backoff.
                var factor = Math.Pow(2, Math.Min(Volatile.Read(ref _failures), 16));
                delay = TimeSpan.FromTicks((long)Math.Min(_maxBackoff.Ticks, _interval.Ticks * factor));
                failed = true;
            }

            try
            {
                if (failed)
                {
                    await Task.Delay(delay, _stop.Token).ConfigureAwait(false);
                }
                else
                {
                    await _wake.WaitAsync(delay, _stop.Token).ConfigureAwait(false); // SH6
                }
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    private async Task ShipCoreAsync(CancellationToken cancellationToken)
    {
        await _lease.EnsureAsync(renew: true, cancellationToken).ConfigureAwait(false); // LS1, LS3: every pass
        _position = await FindPositionAsync(cancellationToken).ConfigureAwait(false); // SH3: every pass
        if (_position == null && _untilFile == long.MaxValue)
        {
            await HandOverAsync(cancellationToken).ConfigureAwait(false); // SH8
        }

        foreach (var (number, _) in LocalFiles())
        {
            if (number <= (_position?.File ?? 0))
            {
                continue;
            }

            if (number > _untilFile)
            {
                break; // SH8: the rest is the compacted store's
            }

            var path = JournalFiles.PathOf(_archive, number);
            var records = ScanRecords(path, number);
            if (records == null)
            {
                if (_position == null)
                {
                    continue; // SH5: another store's file, before this lineage's first
                }

                throw new InvalidOperationException(
                    $"SH5: '{path}' is not a journal file of store {ArchiveKeys.Lineage(_lineage)} (its first record is not bound to it), and files " +
                    $"up to {_position.File} are shipped. Shipping stops here: move the file out of the archive directory if it belongs to another store.");
            }

            if (_position != null && number != _position.File + 1)
            {
                throw new InvalidOperationException(
                    $"SH2: journal file {_position.File + 1} is missing from the archive directory '{_archive}' (file {_position.File} is the last shipped, " +
                    $"{number} the next found): it was deleted before it was shipped, so the destination's log cannot continue. Take a backup, upload it " +
                    "(ObjectArchive.UploadSnapshotAsync), and restart shipping into a new destination or prefix.");
            }

            var header = new ArchiveObjectHeader(ArchiveObjectKind.JournalFile, _lineage, number, records.Value.First, records.Value.Last,
                records.Value.LastCommitTime, 0, _position?.After ?? ArchiveObjectHeader.NoHash, ArchiveObjectHeader.NoHash, 0);
            await _lease.EnsureAsync(renew: false, cancellationToken).ConfigureAwait(false); // LS3, LS4: before every upload
            var stored = await ArchiveUpload.PutFileAsync(_destination, ArchiveKeys.Journal(_lineage, number), path, header, cancellationToken).ConfigureAwait(false);
            _position = new Position(number, stored.After);
            Interlocked.Exchange(ref _lastShippedTransaction, stored.LastTx);
            _lastShippedAt = DateTimeOffset.UtcNow;
            WriteState(_archive, _lineage, number, stored.LastTx);
        }
    }

    /// <summary>SH8: ships the end of the log of the store this one was compacted from, then records the fork.</summary>
    private async Task HandOverAsync(CancellationToken cancellationToken)
    {
        var fileSystem = StorageEnvironmentOptions.ForDirectory(_archive).FileSystem;
        if (!Directory.Exists(_archive) || ArchivedCompaction.List(fileSystem, _archive).Find(n => n.CopyStoreId == _lineage) is not { } note)
        {
            return;
        }

        await using (var predecessor = new ArchiveShipper(_destination, _archive, note.SourceStoreId, _interval, _maxBackoff, _leaseDuration, _clock,
            untilFile: note.SourceLastFile))
        {
            if (await predecessor.FindPositionAsync(cancellationToken).ConfigureAwait(false) == null)
            {
                return; // the old store never shipped here
            }

            await predecessor.ShipPendingAsync(cancellationToken).ConfigureAwait(false); // disposing hands its lease back (LS5)
        }

        await ArchiveUpload.PutHeaderOnlyAsync(_destination, ArchiveKeys.Fork(_lineage), new ArchiveObjectHeader(ArchiveObjectKind.ForkNote,
            _lineage, 0, 0, note.SourceTransaction, 0, 0, ArchiveObjectHeader.NoHash, ArchiveObjectHeader.NoHash, note.SourceStoreId), cancellationToken).ConfigureAwait(false);
    }

    /// <summary>SH3: the lineage's last journal object in the destination (its number and After), or null when it holds none.</summary>
    private async Task<Position?> FindPositionAsync(CancellationToken cancellationToken)
    {
        var hint = _position?.File ?? ReadState(_archive, _lineage);
        var found = await LastObjectAsync(hint is > 1 ? ArchiveKeys.Journal(_lineage, hint.Value - 1) : null, cancellationToken).ConfigureAwait(false);
        if (found == null && hint != null)
        {
            found = await LastObjectAsync(null, cancellationToken).ConfigureAwait(false); // the hint's object is gone (pruned): the full list
        }

        if (found == null)
        {
            return null;
        }

        var last = found.Key;
        ArchiveObjectHeader? read = null;
        if (found.Length >= ArchiveObjectHeader.Size)
        {
            read = await ArchiveUpload.ReadHeaderAsync(_destination, last, cancellationToken).ConfigureAwait(false) ??
                throw new IOException($"'{last}' was listed in {_destination.Description} and then could not be read; retried later.");
        }

        if (read is not { } header || found.Length != ArchiveObjectHeader.Size + header.ContentLength)
        {
            await _destination.DeleteAsync(last, cancellationToken).ConfigureAwait(false); // SH7: a torn upload, never acknowledged
            return await FindPositionAsync(cancellationToken).ConfigureAwait(false);
        }

        if (header.Kind != ArchiveObjectKind.JournalFile || header.Lineage != _lineage)
        {
            throw new CorruptionException(ArchiveUpload.Where(_destination, last), 0,
                $"AO2: the object is not a journal file of lineage {ArchiveKeys.Lineage(_lineage)} (kind {header.Kind}, lineage {ArchiveKeys.Lineage(header.Lineage)})");
        }

        Interlocked.Exchange(ref _lastShippedTransaction, header.LastTx);
        return new Position(header.Sequence, header.After);
    }

    private async Task<ArchiveObjectInfo?> LastObjectAsync(string? startAfter, CancellationToken cancellationToken)
    {
        ArchiveObjectInfo? last = null;
        await foreach (var item in _destination.ListAsync(ArchiveKeys.JournalPrefix(_lineage), startAfter, cancellationToken).ConfigureAwait(false))
        {
            if (ArchiveKeys.ParseNumber(item.Key.AsSpan(ArchiveKeys.JournalPrefix(_lineage).Length)) != null)
            {
                last = item;
            }
        }

        return last;
    }

    /// <summary>The archived files numbered after <paramref name="shipped"/> and their bytes: what waits to ship.</summary>
    public static (int Files, long Bytes) Pending(string archiveDirectory, long shipped)
    {
        var files = 0;
        long bytes = 0;
        foreach (var (number, length) in LocalFiles(archiveDirectory))
        {
            if (number > shipped)
            {
                files++;
                bytes += length;
            }
        }

        return (files, bytes);
    }

    private IEnumerable<(long Number, long Length)> LocalFiles() => LocalFiles(_archive);

    private static IEnumerable<(long Number, long Length)> LocalFiles(string archive)
    {
        var fileSystem = StorageEnvironmentOptions.ForDirectory(archive).FileSystem;
        if (!Directory.Exists(archive))
        {
            yield break;
        }

        foreach (var number in JournalFiles.List(fileSystem, archive))
        {
            long length;
            try
            {
                length = new FileInfo(JournalFiles.PathOf(archive, number)).Length;
            }
            catch (FileNotFoundException)
            {
                continue; // pruned meanwhile
            }

            yield return (number, length);
        }
    }

    /// <summary>The transactions of the file's records, read from their headers (first, then each
    /// next one while it follows in sequence); null when the first is not bound to this store (SH5).
    /// Informational: a restore validates every record itself (JA5).</summary>
    private (long First, long Last, long LastCommitTime)? ScanRecords(string path, long number)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        var binding = new RecordBinding(_lineage, number);
        var sector = new byte[JournalRecord.SectorSize];
        long offset = 0;
        long first = 0, last = 0, commitTime = 0;
        while (offset + sector.Length <= file.Length)
        {
            file.Position = offset;
            file.ReadExactly(sector);
            if (!JournalRecordHeader.TryRead(sector, binding, out var header) || (first != 0 && header.TransactionId != last + 1))
            {
                break;
            }

            try
            {
                JournalRecord.ValidateHeader(header, path, offset, file.Length);
            }
            catch (Exception e) when (e is CorruptionException or FormatVersionException)
            {
                break;
            }

            if (first == 0)
            {
                first = header.TransactionId;
            }

            last = header.TransactionId;
            commitTime = header.CommitTime;
            offset += header.RecordSize;
        }

        return first == 0 ? null : (first, last, commitTime);
    }

    /// <summary>SH4: the last file shipped for <paramref name="lineage"/> by the state file, or null
    /// (none, another lineage's, or unreadable: the file is only a hint, the destination says).</summary>
    public static long? ReadState(string archiveDirectory, ulong? lineage) =>
        ReadShipped(archiveDirectory) is { } state && (lineage == null || state.Lineage == lineage) ? state.File : null;

    // The state file (SH4) is one line of text: "voron-shipped 2 <lineage, 16 hex> <last file shipped>
    // <its last transaction>" (version 1 had no transaction). A hint, never trusted for safety: an
    // unreadable or unknown line reads as "nothing shipped", which only keeps more files (SH4).

    /// <summary>SH4: what the state file in <paramref name="archiveDirectory"/> says was shipped (the
    /// transaction is 0 when a version-1 line does not say), or null when there is none or it cannot be read.</summary>
    public static (ulong Lineage, long File, long Transaction)? ReadShipped(string archiveDirectory)
    {
        try
        {
            var parts = File.ReadAllText(Path.Combine(archiveDirectory, StateFileName)).Split(' ', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
            var (version, id, file, transaction) = parts switch
            {
                ["voron-shipped", "1", var i, var f] => ("1", i, f, "0"),
                ["voron-shipped", "2", var i, var f, var t] => ("2", i, f, t),
                _ => (null, "", "", ""),
            };
            if (version != null && ArchiveKeys.ParseLineage(id) is { } found &&
                long.TryParse(file, NumberStyles.None, CultureInfo.InvariantCulture, out var number) &&
                long.TryParse(transaction, NumberStyles.None, CultureInfo.InvariantCulture, out var tx))
            {
                return (found, number, tx);
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
        }

        return null;
    }

    private static void WriteState(string archiveDirectory, ulong lineage, long number, long transaction)
    {
        var path = Path.Combine(archiveDirectory, StateFileName);
        File.WriteAllText(path + ".tmp",
            $"voron-shipped 2 {ArchiveKeys.Lineage(lineage)} {number.ToString(CultureInfo.InvariantCulture)} {transaction.ToString(CultureInfo.InvariantCulture)}\n");
        File.Move(path + ".tmp", path, overwrite: true); // a hint only (SH3): no fsync needed
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        if (_loop != null)
        {
            await _loop.ConfigureAwait(false);
        }

        // LS5: once no pass runs (a pass under way was cancelled with _stop), hand the lease back,
        // waiting a few seconds at most: a destination that does not answer lets it expire instead.
        using var release = new CancellationTokenSource(TimeSpan.FromSeconds(5));
        try
        {
            await _gate.WaitAsync(release.Token).ConfigureAwait(false);
            await _lease.ReleaseAsync(release.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
        }

        _stop.Dispose();
        _wake.Dispose();
    }
}
