using Voron.Journal;

namespace Voron.Archive;

// Timely release (StorageEnvironmentOptions.ArchiveMaxDelay): a store that ships its archive
// leaves its current journal file once the file's first record is older than the delay, so the
// destination trails the store by about the delay rather than by a whole journal file.
//
//   loop (RunAsync), on its own task                    one step (ReleaseIfDue, under _step)
//   -------------------------------------------------   ---------------------------------------------
//   the current file holds a record: wait until the      1. the current file's first record is at
//     first one is due                                     least the delay old: StartNewFile (J14)
//   else, a left file is not released yet (a reader      2. a file before the current one is still
//     held the flush back): wait the delay, at least       there: flush (FL11 when there is nothing
//     RetryFloor                                           to write); the archive copy (JA1) wakes
//   else: wait for a new file's first record                the shipper (SH6)
//     (RecordAppended, from the commit path)
//   ReleaseIfDue; until the store closes (DisposeAsync)
//
// TR1. commits never wait for a release: the commit path only notes the time of a file's first
//      record (RecordAppended: one comparison per commit, a short lock per new file); leaving the
//      file, the flush and the archive copy run on this task. One commit may wait on the
//      journal's lock while the new file is created and preallocated (J13): at most once per
//      delay, as a size rotation makes one commit wait once per file.
// TR2. a file is left only while it holds a record (StartNewFile refuses an empty one): an idle
//      store makes no new files and ships no objects.
// TR3. the delay is counted from the moment this process saw the file's first record (its clock,
//      StorageEnvironmentOptions.Clock); a file that already holds records when the store opens
//      is due at once (its records are older than the open).
// TR4. every release goes through the flusher (J6, FL3): the data file is synced past the file's
//      records and a durable header starts recovery past the file before it is archived and
//      deleted. So this adds no I/O step of its own: a new journal file (as a size rotation), a
//      flush (as the background flush), a header write that moves only the position (FL11).
// TR5. a failure in a step fails the store, as a failed flush does (FL6), and ends the loop; a
//      store that closes ends it too (the close waits for a step under way).

/// <summary>Leaves and releases aged journal files of a store that ships its archive (TR1..TR5 above).</summary>
internal sealed class TimelyRelease : IAsyncDisposable
{
    /// <summary>The shortest wait between two tries to release a left file that a reader holds back.</summary>
    private static readonly TimeSpan RetryFloor = TimeSpan.FromMilliseconds(50);

    private readonly JournalWriter _journal;
    private readonly Action _flush;
    private readonly TimeProvider _clock;
    private readonly TimeSpan _delay;
    private readonly Action<Exception> _fail;
    private readonly SemaphoreSlim _signal = new(0, 1);
    private readonly CancellationTokenSource _stop = new();
    private readonly object _step = new(); // one step at a time (the loop, a test's call)
    private Task? _loop;

    // Guarded by _state: the file whose first record the commit path saw last, and when.
    private readonly object _state = new();
    private long _file = -1;
    private DateTimeOffset _firstAt;

    /// <param name="journal">The store's journal writer.</param>
    /// <param name="flush">The flusher's Flush: syncs the data file and releases what it can (TR4).</param>
    /// <param name="clock">The store's clock (TR3).</param>
    /// <param name="delay">How old a file's first record may get before the file is left.</param>
    /// <param name="fail">Fails the store (TR5).</param>
    public TimelyRelease(JournalWriter journal, Action flush, TimeProvider clock, TimeSpan delay, Action<Exception> fail)
    {
        _journal = journal;
        _flush = flush;
        _clock = clock;
        _delay = delay;
        _fail = fail;
        var (file, hasRecords) = journal.Current;
        if (hasRecords)
        {
            _file = file;
            _firstAt = DateTimeOffset.MinValue; // TR3: due at once
        }
    }

    /// <summary>Starts the background loop; without it only <see cref="ReleaseIfDue"/> releases (tests).</summary>
    public void Start() => _loop = Task.Run(RunAsync);

    /// <summary>TR1: the commit path's note after each append; only a record at the start of a file counts.</summary>
    public void RecordAppended(JournalRecordLocation location)
    {
        if (location.Start.Offset != 0)
        {
            return;
        }

        lock (_state)
        {
            _file = location.Start.FileNumber;
            _firstAt = _clock.GetUtcNow();
        }

        if (_signal.CurrentCount == 0)
        {
            try
            {
                _signal.Release();
            }
            catch (SemaphoreFullException)
            {
                // Another commit's signal is already waiting: one wake is enough.
            }
        }
    }

    /// <summary>
    /// One step (see the outline above): leaves the current file if its first record is due, and
    /// flushes while a left file is still there. Returns whether it left a file.
    /// </summary>
    public bool ReleaseIfDue()
    {
        lock (_step)
        {
            var (current, hasRecords) = _journal.Current;
            var left = false;
            if (hasRecords && DueIn(current) is { } due && due <= TimeSpan.Zero)
            {
                left = _journal.StartNewFile(current); // TR2
            }

            if (left || _journal.HoldsLeftFiles)
            {
                _flush(); // TR4
            }

            return left;
        }
    }

    /// <summary>How long until the first record of <paramref name="file"/> is due, or null when the commit path has not reported it yet.</summary>
    private TimeSpan? DueIn(long file)
    {
        lock (_state)
        {
            if (_file != file)
            {
                return null;
            }

            return _firstAt == DateTimeOffset.MinValue ? TimeSpan.Zero : _firstAt + _delay - _clock.GetUtcNow();
        }
    }

    private TimeSpan NextWait()
    {
        var (current, hasRecords) = _journal.Current;
        if (hasRecords && DueIn(current) is { } due)
        {
            return due < TimeSpan.Zero ? TimeSpan.Zero : due;
        }

        return _journal.HoldsLeftFiles ? (_delay > RetryFloor ? _delay : RetryFloor) : Timeout.InfiniteTimeSpan;
    }

    private async Task RunAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            try
            {
                var wait = NextWait();
                if (wait == Timeout.InfiniteTimeSpan)
                {
                    await _signal.WaitAsync(_stop.Token).ConfigureAwait(false);
                }
                else if (wait > TimeSpan.Zero)
                {
                    await Task.Delay(wait, _clock, _stop.Token).ConfigureAwait(false);
                }

                ReleaseIfDue();
            }
            catch (OperationCanceledException) when (_stop.IsCancellationRequested)
            {
                return;
            }
            catch (Exception e) when (e is ObjectDisposedException or EnvironmentFailedException)
            {
                return; // TR5: the store closed, or failed and said why already
            }
            catch (Exception e)
            {
                _fail(e); // TR5
                return;
            }
        }
    }

    /// <summary>TR5: ends the loop, waiting for a step under way.</summary>
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        if (_loop != null)
        {
            await _loop.ConfigureAwait(false);
        }

        _stop.Dispose();
        _signal.Dispose();
    }
}
