namespace Voron.LoadTests.Measurement;

/// <summary>
/// What a careful application does with many concurrent writers over an engine that commits one
/// writer at a time: callers put their item in a FIFO queue and await it; one committer thread
/// takes everything queued (up to <c>maxBatch</c>, oldest first) and commits it as one
/// transaction, then acknowledges each caller. <c>maxBatch = 1</c> is one transaction per
/// operation, served in arrival order (a fair lock, unlike <c>Monitor</c>). This gives SQLite and
/// LMDB the group commit that Voron's transaction merger gives its callers, on the same closed-
/// and open-loop harnesses; the commit runs on one thread throughout (LMDB requires a write
/// transaction to stay on its thread).
/// </summary>
/// <typeparam name="T">One caller's write.</typeparam>
internal sealed class GroupCommitQueue<T> : IDisposable
{
    private readonly Action<IReadOnlyList<T>> _commit;
    private readonly int _maxBatch;
    private readonly Queue<(T Item, TaskCompletionSource Done)> _queue = new();
    private readonly Thread _committer;
    private bool _closed; // guarded by _queue
    private long _batches;
    private long _operations;

    /// <param name="commit">Commits one batch durably, on the committer thread; an exception fails the batch's callers.</param>
    /// <param name="maxBatch">The most items one transaction takes.</param>
    /// <param name="name">The committer thread's name.</param>
    public GroupCommitQueue(Action<IReadOnlyList<T>> commit, int maxBatch, string name)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxBatch);
        _commit = commit;
        _maxBatch = maxBatch;
        _committer = new Thread(Run) { IsBackground = true, Name = name };
        _committer.Start();
    }

    /// <summary>Batches committed so far.</summary>
    public long Batches => Interlocked.Read(ref _batches);

    /// <summary>Items committed so far.</summary>
    public long Operations => Interlocked.Read(ref _operations);

    /// <summary>Queues <paramref name="item"/>; the task completes when its batch is durable.</summary>
    public Task SubmitAsync(T item)
    {
        // Continuations run on the thread pool, as the merger's do: the committer goes on at once.
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_queue)
        {
            ObjectDisposedException.ThrowIf(_closed, this);
            _queue.Enqueue((item, done));
            if (_queue.Count == 1)
            {
                Monitor.Pulse(_queue);
            }
        }

        return done.Task;
    }

    private void Run()
    {
        var items = new List<T>(_maxBatch);
        var waiters = new List<TaskCompletionSource>(_maxBatch);
        while (true)
        {
            lock (_queue)
            {
                while (_queue.Count == 0 && !_closed)
                {
                    Monitor.Wait(_queue);
                }

                if (_queue.Count == 0)
                {
                    return;
                }

                while (_queue.Count > 0 && items.Count < _maxBatch)
                {
                    var (item, done) = _queue.Dequeue();
                    items.Add(item);
                    waiters.Add(done);
                }
            }

            try
            {
                _commit(items);
                Interlocked.Increment(ref _batches);
                Interlocked.Add(ref _operations, items.Count);
                waiters.ForEach(w => w.TrySetResult());
            }
#pragma warning disable CA1031 // Reported to every caller of the batch, which rethrows it.
            catch (Exception e)
#pragma warning restore CA1031
            {
                waiters.ForEach(w => w.TrySetException(e));
            }

            items.Clear();
            waiters.Clear();
        }
    }

    /// <summary>Commits what is queued, then stops the committer.</summary>
    public void Dispose()
    {
        lock (_queue)
        {
            _closed = true;
            Monitor.Pulse(_queue);
        }

        _committer.Join();
    }
}
