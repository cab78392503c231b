using System.Diagnostics;

namespace Voron.SqliteVfs.Databases;

/// <summary>
/// The write lock of one database (V1), and V6's ticket — the lock kept for a connection that
/// must re-run its statement, lapsing if the connection does not come back.
/// </summary>
/// <remarks>
/// WL1. A free lock goes to whichever thread asks for it first, running or woken: a release does
///      not hand the lock to a waiter that may not run for milliseconds (with many runnable
///      threads on few cores, a strict hand-off leaves the lock idle until the scheduler gets to
///      the waiter: a lock convoy). A release with waiters frees the lock and wakes the first of
///      the line, which takes it if it is still free when it runs, and else waits again at the
///      head of the line. Threads in line take the lock in the line's order: only the head does.
/// WL2. The unfairness is bounded: once the first of the line has waited <see cref="DefaultStarving"/> (100 ms),
///      a release hands the lock straight to it and nobody else may take it first, so no waiter
///      starves; every wait is also bounded by its caller's timeout (V1).
/// WL3. The line is ordered by arrival (V1: a connection that comes back after a busy-handler
///      sleep or a retry keeps its place); a thread that takes a free lock joins no line.
/// WL4. The statistics (<see cref="Statistics"/>) are updated under the lock's monitor: time in
///      line, time held (from the moment the holder's thread returns with it to its release), and
///      each hand-off — a release with threads in line — timed until the next holder runs.
/// </remarks>
internal sealed class WriteLock
{
    /// <summary>
    /// WL2: how long the first of the line may be passed over before the lock is handed to it.
    /// Long, so that hand-offs stay rare: with many writers on few cores, a bound of a few
    /// milliseconds is passed on nearly every release, and each hand-off to a sleeping thread
    /// leaves the lock idle until that thread runs
    /// (docs/results/2026-12-06-code-comment-measurements.md).
    /// </summary>
    internal static readonly TimeSpan DefaultStarving = TimeSpan.FromMilliseconds(100);

    private static readonly TimeSpan TicketCheck = TimeSpan.FromMilliseconds(20);
    private readonly long _starvingTicks;

    private readonly object _sync = new();
    private readonly LinkedList<Waiter> _queue = new();

    // Guarded by _sync.
    private object? _holder;
    private long _ticketDeadline; // Stopwatch ticks; 0 = the holder holds the lock, not a ticket
    private long _heldSince;      // Stopwatch ticks: when the holder's thread got the lock (WL4)
    private long _freedWithWaiters; // Stopwatch ticks of the last release that left threads in line; 0 = none pending
    private WriteLockStatistics _statistics;

    public WriteLock()
        : this(DefaultStarving)
    {
    }

    /// <summary>A lock whose WL2 bound is <paramref name="starving"/> (tests pick one no scheduler delay reaches).</summary>
    internal WriteLock(TimeSpan starving) => _starvingTicks = (long)(starving.TotalSeconds * Stopwatch.Frequency);

    /// <summary>How many wait in line (tests, and a commit's choice of thread).</summary>
    internal int Waiting
    {
        get
        {
            lock (_sync)
            {
                return _queue.Count;
            }
        }
    }

    /// <summary>WL4: what the lock did so far.</summary>
    internal WriteLockStatistics Statistics
    {
        get
        {
            lock (_sync)
            {
                return _statistics;
            }
        }
    }

    /// <summary>Whether <paramref name="owner"/> holds the lock (or its ticket).</summary>
    public bool IsHeldBy(object owner)
    {
        lock (_sync)
        {
            return _holder == owner;
        }
    }

    /// <summary>Whether someone other than <paramref name="owner"/> holds the lock (xCheckReservedLock).</summary>
    public bool IsHeldByAnother(object owner)
    {
        lock (_sync)
        {
            return _holder != null && _holder != owner;
        }
    }

    /// <summary>
    /// Takes the lock, waiting in line up to <paramref name="timeout"/>. A ticket held by
    /// <paramref name="owner"/> becomes the lock. The line is ordered by <paramref name="arrival"/>
    /// (WL3); the default joins at the end. <paramref name="waitingSince"/> (Stopwatch ticks) is
    /// when the caller first asked, for a caller that waits in slices (WL2); default: now.
    /// </summary>
    public bool TryAcquire(object owner, TimeSpan timeout, long arrival = long.MaxValue, long waitingSince = 0)
    {
        var start = Stopwatch.GetTimestamp();
        Waiter waiter;
        lock (_sync)
        {
            if (_holder == owner)
            {
                _ticketDeadline = 0;
                return true;
            }

            var now = Stopwatch.GetTimestamp(); // under the monitor: after any release it saw (WL4)
            if (_holder == null && !HeadIsStarving(now))
            {
                Take(owner, start, now); // WL1: a free lock goes to the thread that asks
                return true;
            }

            if (timeout <= TimeSpan.Zero && timeout != Timeout.InfiniteTimeSpan)
            {
                _statistics = _statistics with { Refusals = _statistics.Refusals + 1 };
                return false;
            }

            waiter = new Waiter(owner, arrival, waitingSince != 0 && waitingSince < start ? waitingSince : start);
            waiter.Node = Enqueue(waiter);
            if (_holder == null && _queue.First!.Value == waiter)
            {
                // A starving head that arrived after this caller's first place: the caller is the line's first now.
                _queue.RemoveFirst();
                waiter.Dispose();
                Take(owner, start, now);
                return true;
            }
        }

        using var _ = waiter; // once out of the line, nothing signals it again

        var deadline = timeout == Timeout.InfiniteTimeSpan ? long.MaxValue : start + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        while (true)
        {
            var remaining = deadline == long.MaxValue ? TicketCheck : Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), deadline);
            if (remaining > TicketCheck)
            {
                remaining = TicketCheck;
            }

            if (remaining > TimeSpan.Zero)
            {
                waiter.Woken.Wait(remaining);
            }

            lock (_sync)
            {
                var now = Stopwatch.GetTimestamp();
                waiter.Woken.Reset();
                if (_holder == owner)
                {
                    // WL2: handed over while it slept.
                    _ticketDeadline = 0;
                    _heldSince = now;
                    RecordTaken(start, now);
                    return true;
                }

                if (_ticketDeadline != 0 && now > _ticketDeadline)
                {
                    Free(now); // V6: the ticket's holder did not come back
                }

                if (_holder == null && _queue.First?.Value == waiter)
                {
                    _queue.Remove(waiter.Node!);
                    Take(owner, start, now);
                    return true;
                }

                if (_holder == null)
                {
                    WakeHead(); // woken while another came in ahead of it: the line's first takes the free lock
                }

                if (now >= deadline)
                {
                    var wasHead = _queue.First?.Value == waiter;
                    _queue.Remove(waiter.Node!);
                    _statistics = _statistics with { Refusals = _statistics.Refusals + 1, WaitTicks = _statistics.WaitTicks + (now - start) };
                    if (wasHead && _holder == null)
                    {
                        WakeHead();
                    }

                    return false;
                }
            }
        }
    }

    /// <summary>V6: keeps the lock for <paramref name="owner"/> as a ticket that lapses after <paramref name="lifetime"/>.</summary>
    public void KeepAsTicket(object owner, TimeSpan lifetime)
    {
        lock (_sync)
        {
            if (_holder == owner)
            {
                _ticketDeadline = Stopwatch.GetTimestamp() + (long)(lifetime.TotalSeconds * Stopwatch.Frequency);
            }
        }
    }

    /// <summary>Releases the lock (or ticket) if <paramref name="owner"/> holds it (WL1, WL2).</summary>
    public void Release(object owner)
    {
        lock (_sync)
        {
            if (_holder == owner)
            {
                Free(Stopwatch.GetTimestamp());
            }
        }
    }

    /// <summary>Under _sync: the lock goes to <paramref name="owner"/>, whose thread runs now.</summary>
    private void Take(object owner, long askedAt, long now)
    {
        _holder = owner;
        _ticketDeadline = 0;
        _heldSince = now;
        RecordTaken(askedAt, now);
    }

    private void RecordTaken(long askedAt, long now)
    {
        var handOff = _freedWithWaiters != 0 ? now - _freedWithWaiters : 0;
        _statistics = _statistics with
        {
            Acquisitions = _statistics.Acquisitions + 1,
            WaitTicks = _statistics.WaitTicks + (now - askedAt),
            HandOffs = _statistics.HandOffs + (_freedWithWaiters != 0 ? 1 : 0),
            HandOffTicks = _statistics.HandOffTicks + handOff,
        };
        _freedWithWaiters = 0;
    }

    /// <summary>Under _sync: ends the holder's turn; WL2 hands the lock to a starving head, else WL1 frees it and wakes the head.</summary>
    private void Free(long now)
    {
        if (_heldSince != 0)
        {
            _statistics = _statistics with { HeldTicks = _statistics.HeldTicks + (now - _heldSince) };
        }

        _holder = null;
        _ticketDeadline = 0;
        _heldSince = 0;
        if (_queue.First is not { } head)
        {
            return;
        }

        _freedWithWaiters = now;
        if (now - head.Value.Since >= _starvingTicks)
        {
            _queue.RemoveFirst();
            _holder = head.Value.Owner; // its thread sets _heldSince when it runs
            _statistics = _statistics with { StarvedHandOffs = _statistics.StarvedHandOffs + 1 };
        }

        head.Value.Woken.Set();
    }

    private bool HeadIsStarving(long now) => _queue.First is { } head && now - head.Value.Since >= _starvingTicks;

    private void WakeHead() => _queue.First?.Value.Woken.Set();

    /// <summary>Puts <paramref name="waiter"/> after every waiter that arrived before it (from the end: usually at once).</summary>
    private LinkedListNode<Waiter> Enqueue(Waiter waiter)
    {
        for (var node = _queue.Last; node != null; node = node.Previous)
        {
            if (node.Value.Arrival <= waiter.Arrival)
            {
                return _queue.AddAfter(node, waiter);
            }
        }

        return _queue.AddFirst(waiter);
    }

    private sealed class Waiter(object owner, long arrival, long since) : IDisposable
    {
        public object Owner { get; } = owner;

        public long Arrival { get; } = arrival;

        /// <summary>When its caller first asked (Stopwatch ticks): WL2 measures starvation from it.</summary>
        public long Since { get; } = since;

        /// <summary>Set when the lock was freed with this waiter first in line, or handed to it.</summary>
        public ManualResetEventSlim Woken { get; } = new(false, spinCount: 0);

        public LinkedListNode<Waiter>? Node { get; set; }

        public void Dispose() => Woken.Dispose();
    }
}

/// <summary>WL4: what one database's write lock did, in Stopwatch ticks.</summary>
internal readonly record struct WriteLockStatistics(long Acquisitions, long Refusals, long WaitTicks, long HeldTicks, long HandOffs, long HandOffTicks, long StarvedHandOffs);
