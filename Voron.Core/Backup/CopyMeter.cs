using System.Diagnostics;

namespace Voron.Backup;

/// <summary>
/// Progress, throttling and cancellation for a long copy (backup, restore, compaction). The copy
/// calls <see cref="Phase"/> when it starts a phase and <see cref="Advance"/> after each chunk it
/// wrote; <see cref="Advance"/> throws when the token is cancelled and sleeps while the copy is
/// ahead of <see cref="BackupOptions.MaxBytesPerSecond"/>. Progress is reported about every 100 ms
/// and at each phase's end. Used from one thread at a time.
/// </summary>
internal sealed class CopyMeter(IProgress<BackupProgress>? progress, long? maxBytesPerSecond, CancellationToken cancellationToken)
{
    private static readonly TimeSpan ReportEvery = TimeSpan.FromMilliseconds(100);
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private TimeSpan _lastReport = TimeSpan.MinValue;
    private string _phase = "";
    private long _done;
    private long _total;
    private long _throttledBytes; // bytes counted against the rate since _throttleStart
    private TimeSpan _throttleStart;

    /// <summary>Bytes written to the destination so far, all phases.</summary>
    public long BytesWritten { get; private set; }

    public TimeSpan Elapsed => _clock.Elapsed;

    public CancellationToken CancellationToken => cancellationToken;

    /// <summary>Ends the current phase (reporting it complete) and starts <paramref name="phase"/> with <paramref name="total"/> units (0 = unknown).</summary>
    public void Phase(string phase, long total)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (_phase.Length > 0)
        {
            Report();
        }

        _phase = phase;
        _done = 0;
        _total = total;
        Report();
    }

    /// <summary>
    /// Records <paramref name="units"/> of the phase done and <paramref name="bytesWritten"/> bytes
    /// written; throws if cancelled; sleeps while over the rate limit.
    /// </summary>
    public void Advance(long units, long bytesWritten)
    {
        cancellationToken.ThrowIfCancellationRequested();
        _done += units;
        BytesWritten += bytesWritten;
        if (maxBytesPerSecond is > 0 and var rate)
        {
            _throttledBytes += bytesWritten;
            var due = _throttleStart + TimeSpan.FromSeconds((double)_throttledBytes / rate);
            var wait = due - _clock.Elapsed;
            if (wait > TimeSpan.Zero)
            {
                cancellationToken.WaitHandle.WaitOne(wait); // wakes early on cancellation
                cancellationToken.ThrowIfCancellationRequested();
            }

            if (_clock.Elapsed - _throttleStart > TimeSpan.FromSeconds(1))
            {
                _throttleStart = _clock.Elapsed; // a fresh window: a slow stretch earns no burst later
                _throttledBytes = 0;
            }
        }

        if (_clock.Elapsed - _lastReport >= ReportEvery)
        {
            Report();
        }
    }

    /// <summary>Reports the current phase complete (call at the end of the last phase).</summary>
    public void Finish()
    {
        _done = Math.Max(_done, _total);
        Report();
    }

    private void Report()
    {
        _lastReport = _clock.Elapsed;
        progress?.Report(new BackupProgress(_phase, _done, _total, BytesWritten, _clock.Elapsed));
    }
}
