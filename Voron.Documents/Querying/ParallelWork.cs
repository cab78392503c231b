namespace Voron.Documents.Querying;

/// <summary>
/// Computes <c>count</c> independent items on the calling thread with at most one thread-pool
/// helper. Items are claimed one at a time, so each runs exactly once, on one of the two threads.
/// The caller never waits for a helper that has not started: once the caller has claimed what is
/// left, a helper that starts later finds the work closed and does nothing. It waits only for the
/// one item a running helper is inside, so when <see cref="Run"/> returns no thread still reads the
/// inputs (the query's batch buffer goes back to the pool right after).
/// </summary>
internal sealed class ParallelWork
{
    /// <summary>Below this many items a helper is not worth its hand-off.</summary>
    public const int MinItemsForHelper = 8;

    private const int Idle = 0;
    private const int Working = 1;
    private const int Closed = 2;

    private readonly Func<int, object> _work;
    private readonly object?[] _results;
    private readonly int _count;
    private readonly object _sync = new();
    private int _next = -1;
    private int _helper; // Idle, Working or Closed

    private ParallelWork(Func<int, object> work, object?[] results, int count)
    {
        _work = work;
        _results = results;
        _count = count;
    }

    /// <summary>
    /// Fills <paramref name="results"/>[0..count) with <paramref name="work"/>'s results, on up to
    /// two threads; <paramref name="work"/> must not throw (it returns its failure as a value).
    /// </summary>
    public static void Run(int count, Func<int, object> work, object?[] results)
    {
        if (count < MinItemsForHelper || Environment.ProcessorCount < 2)
        {
            for (var i = 0; i < count; i++)
            {
                results[i] = work(i);
            }

            return;
        }

        var shared = new ParallelWork(work, results, count);
        ThreadPool.QueueUserWorkItem(static state => state.Help(), shared, preferLocal: false); // flows the caller's context (culture, AsyncLocal) to converters
        shared.Drain();
        shared.Close();
    }

    private void Help()
    {
        if (Interlocked.CompareExchange(ref _helper, Working, Idle) != Idle)
        {
            return; // the caller already finished and closed the work
        }

        try
        {
            Drain();
        }
        finally
        {
            lock (_sync)
            {
                _helper = Idle;
                Monitor.PulseAll(_sync);
            }
        }
    }

    private void Drain()
    {
        int item;
        while ((item = Interlocked.Increment(ref _next)) < _count)
        {
            _results[item] = _work(item);
        }
    }

    /// <summary>Keeps a helper that has not started from starting, and waits for the item a running one is inside.</summary>
    private void Close()
    {
        lock (_sync)
        {
            while (Interlocked.CompareExchange(ref _helper, Closed, Idle) == Working)
            {
                Monitor.Wait(_sync);
            }
        }

        Interlocked.MemoryBarrier(); // the helper's results, written before it went idle, are seen here
    }
}
