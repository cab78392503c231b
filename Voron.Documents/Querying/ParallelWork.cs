namespace Voron.Documents.Querying;

/// <summary>
/// Computes <c>count</c> independent items on the calling thread with at most one thread-pool
/// helper. Items are claimed one at a time and each result is published once (the first to finish
/// wins). The caller never waits: after claiming what is left, it computes itself any item the
/// helper claimed but has not finished (a helper the scheduler preempted cannot stall the query),
/// so a busy pool costs only the queued call and at worst an item computed twice. A helper still
/// inside a duplicate item when <see cref="Run"/> returns finishes it unseen (its result is dropped):
/// the work must tolerate its inputs going away then (the query's batch buffer is returned to the pool).
/// </summary>
internal sealed class ParallelWork
{
    /// <summary>Below this many items a helper is not worth its hand-off.</summary>
    public const int MinItemsForHelper = 8;

    private readonly Func<int, object> _work;
    private readonly object?[] _results;
    private readonly int _count;
    private int _next = -1;

    private ParallelWork(Func<int, object> work, object?[] results, int count)
    {
        _work = work;
        _results = results;
        _count = count;
    }

    /// <summary>
    /// Fills <paramref name="results"/>[0..count) with <paramref name="work"/>'s results (never null),
    /// on up to two threads; <paramref name="work"/> must not throw and may run twice for an item.
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
        ThreadPool.QueueUserWorkItem(static state => state.Drain(), shared, preferLocal: false); // flows the caller's context (culture, AsyncLocal) to converters
        shared.Drain();
        for (var i = 0; i < count; i++)
        {
            if (Volatile.Read(ref results[i]) == null)
            {
                Interlocked.CompareExchange(ref results[i], work(i), null); // claimed by the helper, not finished: do it here
            }
        }
    }

    private void Drain()
    {
        int item;
        while ((item = Interlocked.Increment(ref _next)) < _count) // a helper starting late finds nothing left
        {
            Interlocked.CompareExchange(ref _results[item], _work(item), null);
        }
    }
}
