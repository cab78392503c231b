namespace Voron.Documents.Querying;

/// <summary>
/// Runs <c>count</c> independent items on the calling thread with at most one thread-pool helper.
/// Items are claimed one at a time; the caller never waits for a helper that has not started (it
/// claims the remaining items itself), only for the one item a started helper is finishing. So a
/// busy pool costs nothing but the queued call, and the caller cannot be starved or deadlocked.
/// </summary>
internal sealed class ParallelWork
{
    /// <summary>Below this many items a helper is not worth its hand-off.</summary>
    public const int MinItemsForHelper = 8;

    private readonly Action<int> _work;
    private readonly int _count;
    private int _next = -1;
    private int _done;

    private ParallelWork(Action<int> work, int count)
    {
        _work = work;
        _count = count;
    }

    /// <summary>Calls <paramref name="work"/> once for each of 0..count-1, in any order and on up to two threads; returns when every call has returned. <paramref name="work"/> must not throw.</summary>
    public static void Run(int count, Action<int> work)
    {
        if (count < MinItemsForHelper || Environment.ProcessorCount < 2)
        {
            for (var i = 0; i < count; i++)
            {
                work(i);
            }

            return;
        }

        var shared = new ParallelWork(work, count);
        ThreadPool.QueueUserWorkItem(static state => state.Drain(), shared, preferLocal: false); // flows the caller's context (culture, AsyncLocal) to converters
        shared.Drain();
        var spin = new SpinWait();
        while (Volatile.Read(ref shared._done) < count)
        {
            spin.SpinOnce(); // the helper is finishing the one item it claimed
        }
    }

    private void Drain()
    {
        int item;
        while ((item = Interlocked.Increment(ref _next)) < _count)
        {
            _work(item);
            Interlocked.Increment(ref _done);
        }
    }
}
