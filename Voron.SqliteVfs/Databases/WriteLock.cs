using System.Diagnostics;

namespace Voron.SqliteVfs.Databases;

/// <summary>
/// The write lock of one database (V1): a FIFO queue that hands the lock straight to the next
/// waiter (so a release wakes one thread, not all of them), and V6's ticket — the lock kept for
/// a connection that must re-run its statement, lapsing if the connection does not come back.
/// </summary>
internal sealed class WriteLock
{
    private static readonly TimeSpan TicketCheck = TimeSpan.FromMilliseconds(20);

    private readonly object _sync = new();
    private readonly LinkedList<Waiter> _queue = new();

    // Guarded by _sync.
    private object? _holder;
    private long _ticketDeadline; // Stopwatch ticks; 0 = the holder holds the lock, not a ticket

    /// <summary>How many wait in line (tests).</summary>
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
    /// (V1: a connection that comes back after a busy-handler sleep or a retry keeps its place);
    /// the default joins at the end.
    /// </summary>
    public bool TryAcquire(object owner, TimeSpan timeout, long arrival = long.MaxValue)
    {
        Waiter waiter;
        lock (_sync)
        {
            if (_holder == owner)
            {
                _ticketDeadline = 0;
                return true;
            }

            if (_holder == null && _queue.Count == 0)
            {
                _holder = owner;
                return true;
            }

            waiter = new Waiter(owner, arrival);
            waiter.Node = Enqueue(waiter);
        }

        using var _ = waiter; // once granted or removed from the queue, nothing signals it again

        var deadline = timeout == Timeout.InfiniteTimeSpan ? long.MaxValue : Stopwatch.GetTimestamp() + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        while (true)
        {
            var remaining = deadline == long.MaxValue ? TicketCheck : Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), deadline);
            if (remaining > TicketCheck)
            {
                remaining = TicketCheck;
            }

            if (remaining > TimeSpan.Zero && waiter.Granted.Wait(remaining))
            {
                return true; // handed over by Release
            }

            lock (_sync)
            {
                if (_holder == owner)
                {
                    _ticketDeadline = 0;
                    return true;
                }

                if (_ticketDeadline != 0 && Stopwatch.GetTimestamp() > _ticketDeadline)
                {
                    HandOver(); // V6: the ticket's holder did not come back
                    if (_holder == owner)
                    {
                        return true;
                    }
                }

                if (Stopwatch.GetTimestamp() >= deadline)
                {
                    _queue.Remove(waiter.Node!);
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

    /// <summary>Releases the lock (or ticket) if <paramref name="owner"/> holds it; the next waiter gets it.</summary>
    public void Release(object owner)
    {
        lock (_sync)
        {
            if (_holder == owner)
            {
                HandOver();
            }
        }
    }

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

    private void HandOver()
    {
        _ticketDeadline = 0;
        if (_queue.First is { } next)
        {
            _queue.RemoveFirst();
            _holder = next.Value.Owner;
            next.Value.Granted.Set();
        }
        else
        {
            _holder = null;
        }
    }

    private sealed class Waiter(object owner, long arrival) : IDisposable
    {
        public object Owner { get; } = owner;

        public long Arrival { get; } = arrival;

        public ManualResetEventSlim Granted { get; } = new(false, spinCount: 0);

        public LinkedListNode<Waiter>? Node { get; set; }

        public void Dispose() => Granted.Dispose();
    }
}
