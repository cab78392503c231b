using System.Diagnostics;
using Voron.Diagnostics;
using Voron.Header;
using Voron.Journal;
using Voron.Paging;
using Voron.Transactions;

namespace Voron.Flushing;

// Design notes — flushing and syncing.
//
// The flusher is given what it needs when it is built (FlusherSeams): the journal, the page
// table, the pager, a header writer, the failure sink, and the transaction registry's horizon and
// retention functions. It never sees the store that owns it.
//
//   Flush(), under _flushLock (one flush at a time):
//     1. F = PinFlushHorizon(): under the readers' lock, the oldest live reader's snapshot,
//        or the last published commit when no reader is live (FL1)
//     2. batch = the unflushed commits with tx <= F (FL4); pages = every page they wrote; for
//        each, the newest version with tx <= F from the page table
//     3. data file: extend, write the pages as gathered runs (Pager.WritePages) — of each page
//        only the 4 KiB units the batch's commits changed (the OR of their masks, FL10), whole
//        where a mask is unknown or the page lies past the file's end before the flush
//     4. data file: FlushData (fdatasync)                           (FL2: before the header)
//     5. header: revision + 1, LastSyncedTxId = F, journal position after F's record (the
//        next file's start when the journal left F's file there, J14), state as of F;
//        written to the other copy and FlushData'd                  (FL3: before releasing)
//     6. page table: drop versions <= F of those pages (PT4)
//     7. journal: release files wholly before F's position (the writer takes its own lock, J13)
//     (an empty batch: only FL11)
//   any failure, of any type, at any step: the store fails (fail-stop, FL6); the journal
//   still holds everything.
//   then, outside the lock: statistics (pages, bytes, seeks = runs written, pages by kind from
//   each image's header) to VoronMetrics, options.FlushLog and options.OnFlush
//
// Invariants:
//   FL0. The data file never gets a transaction's pages before its journal record is durable
//        (in lazy mode the flush syncs the journal first), except the pages a commit created and
//        writes in place, which are free in every durable state until the record is (IP2).
//   FL1. F never exceeds the snapshot of a reader live at any moment of the flush or after it,
//        so the data file never holds a page version newer than a reader that falls through to
//        it expects (PageTable PT3). A reader registered when F is fixed has a snapshot >= F; one
//        that registers later reads the committed state under the same lock, after F was read
//        from it, and commits only move forward — so its snapshot is >= F too. (F must be read
//        in one step: reading the oldest reader first and taking the batch later let a reader
//        begin at N in between while N + 1 committed and was flushed under it.)
//   FL2. The header never claims a transaction the data file has not synced.
//   FL3. A journal file is recycled only after a synced header no longer needs it for recovery.
//   FL4. The batch is taken after F is fixed and holds only commits with tx <= F: commits
//        queued while the flush runs (tx > F) wait for a later flush, whatever their number.
//   FL5. Readers may begin, end and read at every step of a flush (FlushStep): every version a
//        reader can need stays in the page table until the data file holds it synced (PT4).
//   FL6. A flush that fails, for whatever reason and at whatever step, fails the store
//        (fail-stop, reported through the failure sink: the store's IsFailed / Failure, the
//        failure metric and OnFailure) — the background flusher never dies silently while
//        commits go on and memory and journal grow. Nothing acknowledged is lost: the journal holds it.
//   FL7. A reader that holds the horizon back longer than LongReaderThreshold while commits
//        wait is reported (OnLongReader, at most once per threshold; the gauges
//        voron.reader.oldest_age and voron.reader.held_back_bytes always). Its versions stay in
//        the page table, bounded in memory by MaxPageVersionMemory (beyond it they spill to the
//        scratch file: PageTable PT8), and in the journal — the one thing a user can do is end
//        it (docs/durability.md).
//   FL8. The flush's horizon F is pinned from the moment it is fixed to the end of the flush
//        (FlusherSeams.PinFlushHorizon): pruning (PageTable PT6) keeps the newest version
//        <= F of every page as if F were a live reader, so the flush writes the versions it
//        chose even if the readers that set F end meanwhile. After each flush, and at every wake,
//        the page table prunes, frees scratch slots and spills to its budget (PageTable.Maintain),
//        and the mappings' views no one can read any more are released (Paging/SupersededViews.cs).
//   FL9. A commit is queued here before it becomes visible (Transactions/CommitPipeline.cs), so
//        every transaction up to the committed id is queued, and a batch that is not empty ends
//        exactly at F. FL8 pins F, so the flush must write the newest versions <= F: had the batch
//        ended below F (a commit visible but not yet queued when F was fixed), pruning could drop
//        the newest version <= the batch's end, and the flush would skip that page or write
//        another's, while its header claims the batch.
//   FL10. The flush writes, of each page (or overflow run), at least every 4 KiB unit whose bytes
//        differ between the data file's version and the version it writes (Flushing/FlushUnits.cs).
//        Each commit carries a mask per page (PreparedCommit.FlushUnits): the units its diff
//        against the previous version touches; every unit when the page is stored whole, created
//        by the commit (its diff is against zeros, not against what the file holds there: a
//        freed page's old bytes), when diffs are off, or when the mask is unknown. The data file
//        holds every page as of the last flush (recovery writes whole pages and syncs before the
//        store opens), and the batch is exactly the commits after it up to F (FL4, FL9), each
//        diffed against the one before it; so the OR of the batch's masks covers every changed
//        byte. Pages past the file's end before the flush are written whole. Off through
//        StorageEnvironmentOptions.FlushChangedUnitsOnly (the A/B, and the tests' reference).
//   FL11. A flush with nothing to write still releases a journal file the writer left with every
//        record in it flushed (J14): the header moves from that file's log end to the next
//        file's start and the file is archived and released. So a store that ships its archive
//        gets its last file out while idle (Archive/TimelyRelease.cs asks for this flush).
//
//   The background flush wakes when the backlog (page bytes summed per committed transaction)
//   crosses FlushThresholdBytes, when a flush ends with the backlog at the threshold again, and
//   every FlushInterval. A commit above the threshold does not wake it again: one wake, one flush.

/// <summary>Copies committed pages from the page table to the data file, in the background or on demand.</summary>
internal sealed class DataFileFlusher : IDisposable
{
    private readonly FlusherSeams _seams;
    private readonly JournalWriter _journal;
    private readonly FailureSink _failures;
    private readonly StorageEnvironmentOptions _options;
    private readonly object _flushLock = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly SemaphoreSlim _wake = new(0);
    private readonly Task? _background;
    private readonly Task? _lazyJournalSync;

    // Guarded by _queueLock: committed transactions not yet in the data file, oldest first.
    private readonly object _queueLock = new();
    private readonly List<UnflushedTransaction> _unflushed = [];
    private long _unflushedBytes;

    private HeaderRecord _header; // guarded by _flushLock
    private bool _closed; // guarded by _flushLock: no flush starts once the store releases its files (LC5)
    private long _flushedTxId;

    public DataFileFlusher(FlusherSeams seams, HeaderRecord header, StorageEnvironmentOptions options)
    {
        _seams = seams;
        _journal = seams.Journal;
        _failures = seams.Failures;
        _options = options;
        _header = header;
        _flushedTxId = header.LastSyncedTxId;
        if (options.BackgroundFlush)
        {
            _background = Task.Run(RunAsync);
        }

        if (options.Durability == DurabilityMode.Lazy)
        {
            _lazyJournalSync = Task.Run(SyncJournalPeriodicallyAsync);
        }
    }

    public long FlushedTxId => Volatile.Read(ref _flushedTxId);

    /// <summary>Wakes of the background flush not yet consumed (each runs one flush): at most one or two.</summary>
    internal int PendingWakes => _wake.CurrentCount;

    /// <summary>Committed transactions after <paramref name="snapshot"/> not yet in the data file, and their page bytes.</summary>
    public (int Transactions, long Bytes) HeldBackAfter(long snapshot)
    {
        lock (_queueLock)
        {
            int count = 0;
            long bytes = 0;
            for (var i = _unflushed.Count - 1; i >= 0 && _unflushed[i].TxId > snapshot; i--)
            {
                count++;
                bytes += _unflushed[i].Bytes;
            }

            return (count, bytes);
        }
    }

    /// <summary>
    /// FL7: warns (OnLongReader) while the oldest reader holds commits back from the data file for
    /// longer than LongReaderThreshold, at most once per threshold.
    /// </summary>
    private void WarnAboutLongReader()
    {
        if (_options.OnLongReader is not { } warn || _seams.OldestSnapshotPin() is not { } pin ||
            pin.Age < _options.LongReaderThreshold || pin.HeldBackTransactions == 0 ||
            (_lastLongReaderWarning != 0 && Stopwatch.GetElapsedTime(_lastLongReaderWarning) < _options.LongReaderThreshold))
        {
            return;
        }

        _lastLongReaderWarning = Stopwatch.GetTimestamp();
        try
        {
            warn(pin);
        }
#pragma warning disable CA1031 // an observer's bug must not stop flushing; the options say so
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    private long _lastLongReaderWarning; // background loop only

    public void Enqueue(UnflushedTransaction transaction)
    {
        bool wake;
        lock (_queueLock)
        {
            _unflushed.Add(transaction);
            var before = _unflushedBytes;
            _unflushedBytes += transaction.Bytes;
            // Wake the flusher when the backlog crosses the threshold, not on every commit above
            // it: each wake is one flush (data-file fdatasync, header write), and waking on each
            // commit above the threshold during a flush would queue a flush per commit, dozens a
            // second.
            wake = before < _options.FlushThresholdBytes && _unflushedBytes >= _options.FlushThresholdBytes;
        }

        if (wake && _background != null)
        {
            _wake.Release();
        }
    }

    /// <summary>
    /// IP1 (Transactions/InPlacePages.cs): for each of <paramref name="runs"/>, whether no commit
    /// still queued here names a page of it in its record. A commit leaves the queue only after
    /// its pages are synced in the data file, a durable header starts recovery past its record,
    /// and the page table dropped its versions (FL3, PT4).
    /// </summary>
    public bool[] Untouched(IReadOnlyList<PageRun> runs)
    {
        var result = new bool[runs.Count];
        if (runs.Count == 0)
        {
            return result;
        }

        // Candidates sorted by first page, so each queued run finds those it overlaps by binary search.
        var order = Enumerable.Range(0, runs.Count).OrderBy(i => runs[i].First).ToArray();
        var firsts = order.Select(i => runs[i].First).ToArray();
        var maxCount = runs.Max(r => r.Count);
        var touched = new bool[runs.Count];
        lock (_queueLock)
        {
            foreach (var transaction in _unflushed)
            {
                for (var i = 0; i < transaction.NamedSinglePages; i++)
                {
                    Touch(new PageRun(transaction.Pages[i], 1));
                }

                if (transaction.NamedSinglePages > 0)
                {
                    continue;
                }

                if (transaction.Runs == null)
                {
                    // Not known: nothing at or after its first page is safe.
                    var least = transaction.Pages.Length == 0 ? long.MaxValue : transaction.Pages.Min();
                    for (var k = 0; k < order.Length; k++)
                    {
                        touched[k] |= runs[order[k]].First + runs[order[k]].Count > least;
                    }

                    continue;
                }

                foreach (var run in transaction.Runs)
                {
                    Touch(run);
                }
            }
        }

        void Touch(PageRun run)
        {
            // Candidates starting in (run.First - maxCount, run.First + run.Count) may overlap it.
            var at = Array.BinarySearch(firsts, run.First - maxCount + 1);
            for (var k = at < 0 ? ~at : at; k < firsts.Length && firsts[k] < run.First + run.Count; k++)
            {
                var candidate = runs[order[k]];
                touched[k] |= candidate.First + candidate.Count > run.First;
            }
        }

        for (var k = 0; k < order.Length; k++)
        {
            result[order[k]] = !touched[k];
        }

        return result;
    }

    public FlushStatistics? Flush()
    {
        FlushStatistics? statistics;
        lock (_flushLock)
        {
            if (_closed)
            {
                throw _seams.Disposed(); // LC5
            }
            try
            {
                statistics = FlushLocked();
            }
            catch (Exception e)
            {
                // FL6: whatever the exception's type, the store fails (reported); the journal
                // still holds everything, and the next open recovers.
                throw _failures.FailWith(e);
            }
        }

        if (statistics != null)
        {
            Report(statistics);
        }

        return statistics;
    }

    /// <summary>Metrics, the log line and the callback for one flush; outside the flush lock.</summary>
    private void Report(FlushStatistics statistics)
    {
        var tag = VoronMetrics.StoreTag(_seams.Path);
        VoronMetrics.Flushes.Add(1, tag);
        VoronMetrics.FlushPages.Record(statistics.Pages, tag);
        VoronMetrics.FlushBytes.Record(statistics.Bytes, tag);
        VoronMetrics.FlushSeeks.Record(statistics.Seeks, tag);
        VoronMetrics.FlushedPagesByKind.Add(statistics.LeafPages, tag, new("voron.page.kind", "leaf"));
        VoronMetrics.FlushedPagesByKind.Add(statistics.BranchPages, tag, new("voron.page.kind", "branch"));
        VoronMetrics.FlushedPagesByKind.Add(statistics.OverflowPages, tag, new("voron.page.kind", "overflow"));
        VoronMetrics.FlushedPagesByKind.Add(statistics.FreeSpacePages, tag, new("voron.page.kind", "free_space"));
        try
        {
            _options.FlushLog?.Invoke(statistics.ToLogLine());
            _options.OnFlush?.Invoke(statistics);
        }
#pragma warning disable CA1031 // An observer's bug must not stop flushing (the background loop would end); the options say so.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    private FlushStatistics? FlushLocked()
    {
        if (_failures.Failure != null)
        {
            return null;
        }

        Step(FlushStep.Started);
        var horizon = _seams.PinFlushHorizon(); // FL1: fixed once, before the batch is taken (FL4); FL8: pinned
        FlushStatistics? statistics;
        try
        {
            statistics = FlushUpTo(horizon);
        }
        finally
        {
            _seams.UnpinFlushHorizon();
        }

        MaintainPageTable();
        return statistics;
    }

    /// <summary>
    /// Prunes, frees and spills the page table's versions (PageTable.Maintain), and releases the
    /// mappings' views no one can read (MV4): after each flush and at every wake of the background
    /// flush, under the flush lock, so versions a reader held are dropped soon after it ends even
    /// when nothing commits.
    /// </summary>
    internal void MaintainPageTable()
    {
        if (_failures.Failure == null)
        {
            var retention = _seams.PageTable.Maintain(_seams.CaptureRetention);
            // MV3: the capture's current generation still holds: only a flush advances it, under this lock.
            _seams.Pager.Views.Maintain(retention.OldestGeneration, retention.CurrentGeneration);
        }
    }

    private FlushStatistics? FlushUpTo(long horizon)
    {
        Step(FlushStep.HorizonFixed);
        List<UnflushedTransaction> batch;
        lock (_queueLock)
        {
            batch = _unflushed.TakeWhile(t => t.TxId <= horizon).ToList();
        }

        if (batch.Count == 0)
        {
            ReleaseLeftFile();
            return null;
        }

        Step(FlushStep.BatchTaken);
        var last = batch[^1];
        if (last.TxId != horizon)
        {
            throw new InvalidOperationException($"FL9: the flush pinned tx {horizon} but its batch ends at tx {last.TxId}.");
        }

        var units = ChangedUnits(batch);
        var pageNumbers = units.Keys;

        var start = Stopwatch.GetTimestamp();
        if (_options.Durability == DurabilityMode.Lazy)
        {
            _journal.Sync(); // FL0, write-ahead: the journal holds every flushed transaction durably first
        }

        var images = _seams.PageTable.NewestUpTo(pageNumbers, last.TxId).ConvertAll(p => new KeyValuePair<long, ReadOnlyMemory<byte>>(p.Key, p.Value));
        var pager = _seams.Pager;
        var (seeks, written) = pager.WritePages(images, UnitsToWrite(images, units, pager.PageCount));
        var kinds = PageKinds.Of(images); // now: once the page table drops them, their buffers may be recycled (PB1)
        Step(FlushStep.PagesWritten);
        pager.Sync(); // FL2
        Step(FlushStep.DataSynced);
        var end = _journal.Continuation(last.JournalEnd); // J14: a left file's end is the next file's start
        var header = _header with
        {
            Revision = _header.Revision + 1, LastSyncedTxId = last.TxId, JournalFile = end.FileNumber, JournalOffset = end.Offset, State = last.State,
        };
        _seams.WriteHeader(header); // FL3: synced before journal files are released
        _header = header;
        Volatile.Write(ref _flushedTxId, header.LastSyncedTxId);
        Step(FlushStep.HeaderWritten);
        _seams.PageTable.RemoveUpTo(pageNumbers, last.TxId, _seams.RetireGeneration); // PT4, PT7
        Step(FlushStep.PageTableTrimmed);
        _journal.ArchiveBefore(end); // JA1: the copy runs without the journal's lock, so commits go on (J13)
        _journal.ReleaseBefore(end); // FL3

        Step(FlushStep.JournalReleased);

        lock (_queueLock)
        {
            _unflushed.RemoveRange(0, batch.Count);
            _unflushedBytes -= batch.Sum(t => t.Bytes);
        }

        return new FlushStatistics(last.TxId, batch.Count, kinds.Pages, written, seeks, kinds.Leaves, kinds.Branches, kinds.Overflows, kinds.FreeSpace,
            Stopwatch.GetElapsedTime(start));
    }

    /// <summary>
    /// FL11: nothing to flush, but the header's recovery start is where the log ends in a file the
    /// journal has left (J14): the header moves to the next file's start — the same transaction,
    /// state and data file, so FL2 holds — and the left file is archived and released (FL3).
    /// </summary>
    private void ReleaseLeftFile()
    {
        var at = new JournalPosition(_header.JournalFile, _header.JournalOffset);
        var next = _journal.Continuation(at);
        if (next == at)
        {
            return;
        }

        var header = _header with { Revision = _header.Revision + 1, JournalFile = next.FileNumber, JournalOffset = next.Offset };
        _seams.WriteHeader(header); // FL3: synced before the file is released
        _header = header;
        Step(FlushStep.HeaderWritten);
        _journal.ArchiveBefore(next);
        _journal.ReleaseBefore(next);
        Step(FlushStep.JournalReleased);
    }

    /// <summary>
    /// FL10: per page the batch wrote or freed, the 4 KiB units any of its commits changed (the OR
    /// of their masks; every unit where a commit's mask is unknown).
    /// </summary>
    private static Dictionary<long, ulong> ChangedUnits(List<UnflushedTransaction> batch)
    {
        var units = new Dictionary<long, ulong>();
        foreach (var transaction in batch)
        {
            for (var i = 0; i < transaction.Pages.Length; i++)
            {
                var mask = transaction.Units is { } known && i < known.Length ? known[i] : FlushUnits.All;
                var pageNumber = transaction.Pages[i];
                units[pageNumber] = units.GetValueOrDefault(pageNumber) | mask;
            }
        }

        return units;
    }

    /// <summary>
    /// FL10: what to write of each image — the batch's changed units, except every unit when the
    /// switch is off or when the image reaches past the data file's end before this flush (those
    /// bytes were never written: there is nothing to keep).
    /// </summary>
    private ulong[] UnitsToWrite(List<KeyValuePair<long, ReadOnlyMemory<byte>>> images, Dictionary<long, ulong> units, long pagesBefore)
    {
        var result = new ulong[images.Count];
        for (var i = 0; i < images.Count; i++)
        {
            var (pageNumber, image) = images[i];
            var pastEnd = pageNumber + image.Length / Constants.PageSize > pagesBefore;
            result[i] = _options.FlushChangedUnitsOnly && !pastEnd ? units[pageNumber] : FlushUnits.All;
        }

        return result;
    }

    /// <summary>The test hook at <paramref name="step"/> (FlushStep); inert without one.</summary>
    private void Step(FlushStep step) => _options.FlushHook?.Invoke(step);

    private async Task RunAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            try
            {
                await _wake.WaitAsync(_options.FlushInterval, _stop.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return;
            }

            WarnAboutLongReader();
            try
            {
                lock (_flushLock)
                {
                    if (!_closed)
                    {
                        MaintainPageTable();
                    }
                }
            }
            catch (Exception e)
            {
                // FL6: a failed spill leaves memory as it was but the store is not to be trusted
                // with more commits than its budget allows: fail-stop, as any flusher failure.
                _failures.Fail(e);
                return;
            }

            bool pending;
            lock (_queueLock)
            {
                pending = _unflushed.Count > 0;
            }

            if (!pending || _seams.IsDisposed())
            {
                continue;
            }

            FlushStatistics? flushed;
            try
            {
                flushed = Flush();
            }
            catch (Exception e)
            {
                // FL6: Flush failed the store (whatever the exception's type): nothing more to
                // flush. An unexpected exception outside it fails the store here, never silently.
                _failures.Fail(e is EnvironmentFailedException { InnerException: { } cause } ? cause : e);
                return;
            }

            bool refilled;
            lock (_queueLock)
            {
                refilled = _unflushedBytes >= _options.FlushThresholdBytes;
            }

            if (flushed != null && refilled)
            {
                _wake.Release(); // commits during the flush filled the backlog again without crossing the threshold
            }
        }
    }

    /// <summary>The lazy mode's bound on loss: flush the journal every LazyFlushInterval.</summary>
    private async Task SyncJournalPeriodicallyAsync()
    {
        using var timer = new PeriodicTimer(_options.LazyFlushInterval);
        try
        {
            while (await timer.WaitForNextTickAsync(_stop.Token).ConfigureAwait(false))
            {
                if (_failures.Failure != null)
                {
                    return;
                }

                try
                {
                    _journal.Sync();
                }
                catch (Exception e)
                {
                    // Whatever the exception's type, the journal's records may not be durable:
                    // fail-stop, so no exception ends this loop and leaves the store usable.
                    _failures.Fail(e);
                    return;
                }
            }
        }
        catch (OperationCanceledException)
        {
            // Disposed: the environment's close syncs what is left.
        }
    }

    /// <summary>Waits for a flush under way on another thread, and refuses any later one (LC5): the files are about to be released.</summary>
    public void Close()
    {
        lock (_flushLock)
        {
            _closed = true;
        }
    }

    /// <summary>Stops the background flush and waits for a flush in progress to end.</summary>
    public void Dispose()
    {
        _stop.Cancel();
        try
        {
            _background?.Wait();
            _lazyJournalSync?.Wait();
        }
        catch (AggregateException)
        {
            // The background loop ended with an error that already failed the environment.
        }

        _stop.Dispose();
        _wake.Dispose();
    }
}
