using System.Diagnostics;
using System.Threading.Channels;
using Voron.Diagnostics;

namespace Voron.Transactions;

// Design notes — the transaction merger.
//
// Callers submit write operations (delegates over a write transaction) and await a task that
// completes when the operation is durable. One writer task drains the queue into a single write
// transaction until the queue is empty or a limit (operations, dirty bytes, time) is reached, then
// commits it: many callers share one journal write and one fdatasync. It commits through the
// commit pipeline (CommitPipeline.cs: steps 1–5, C1–C5), as explicit write transactions do, and
// gets the rest of what it needs as MergerSeams when it is built; it never sees the store.
//
//   writer loop (one task):
//     take _writeLock (T1)
//     base = the in-flight commit's state if one is being written (async), else the committed state
//     run operations into one transaction; an operation that throws fails alone: the transaction
//       is dropped and the batch's earlier operations run again without it (M1)
//     prepare the commit (checksums, sorted pages)
//     wait for the in-flight commit N - 1 to finish; if it failed, fail this batch (C4)
//     async:  start WriteAndPublish(N) on the committer task; release _writeLock; loop — the next
//             batch runs while N is written and flushed
//     sync:   WriteAndPublish(N); release _writeLock; loop
//   committer (at most one at a time, C1): WriteAndPublish(N), then acknowledge N's operations (C2)
//   caller runs (TransactionMerger.CallerRuns.cs, MG1–MG4): when the merger is idle — nothing in
//     flight, the write lock free, the queue empty — the submitter does all of the above itself
//     for its one operation, with no thread hop; otherwise it queues. Every wait for the
//     in-flight commit claims a caller-run write nobody has run yet (ClaimInFlight, MG4)
//
// Invariants:
//   M1. Operations may run more than once (when a batch-mate throws, the others run again on a
//       fresh transaction); they must not have side effects outside the transaction.
//   M2. An operation's task completes exactly once: result after its transaction is durable,
//       exception if it threw or its commit failed, canceled if its token fired before it started.
//   M3. Disposal is deterministic: the batch in progress and the in-flight commit finish, every
//       operation still queued fails with ObjectDisposedException, then the writer task ends.
//   M4. The queue is bounded (MaxQueuedOperations): submitters wait for room (backpressure), and
//       at most one batch is in flight while the next one runs (a caller-run batch counts as
//       one: it starts only when none is in flight, MG1, and never enters the queue).
//   M5. When the writer stops (failure or disposal) it closes the queue before draining it, so an
//       operation submitted at any moment either is drained and failed or is refused at
//       submission. An unexpected exception while a batch is built or prepared (outside the
//       operations and the journal write) fails that batch's operations with it; nothing of the
//       batch was written, and the writer goes on. A failed in-flight commit, whatever its
//       exception's type, was reported to its own operations and never ends the writer.
//   M6. An operation is synchronous: it runs on a view of the batch's transaction that closes
//       when the delegate returns (T7), so code that runs later — after an await, or from a
//       callback that kept the transaction — throws instead of writing into pages the batch has
//       already committed. A delegate that returns a task or value task is refused when it is
//       submitted (ArgumentException; the overloads taking one are compile-time errors), and an
//       async void delegate is caught when it starts (OperationSynchronizationContext) and fails
//       alone (NotSupportedException). While the delegate runs, only its own thread may use the
//       view (the rest of an async void delegate resumes on another thread and throws there).
//   M7. The writer ends only when the store is disposed or failed. An exception outside the
//       places that expect one fails the store (reported), so a stopped merger is never taken
//       for a live one; a batch's commit reports its outcome as a value (InFlight), never as a
//       faulted task, so no later batch or explicit transaction trips over an earlier failure.
//   M8. MaxBatchBytes counts the bytes of the pages a batch holds (an overflow run counts every
//       page). A batch stops taking operations once it holds that much; an operation that by
//       itself adds MaxBatchBytes or more runs in a batch of its own (the batch it arrived in
//       runs again without it, and it opens the next one). So a batch holds less than
//       2 x MaxBatchBytes of pages, or a single operation — a burst of large values never
//       builds one huge journal record, and never one past the record size limit.
//   M9. A batch built on the in-flight commit (async) reads that commit's pages through the
//       commit, not through the page table, and may still read them after the commit became
//       visible and a flush removed its versions from the table. So the generation a batch
//       counts in (PageTable PT7, PageBufferPool PB1) is a GenerationLease: the batch holds it
//       while it runs, its commit until WriteAndPublish returns, and the next batch takes it
//       (TryAcquire) before it builds on the commit and holds it until it ends. A buffer that
//       leaves the table while the commit can still be built on is retired with that generation
//       or a newer one, so it waits for every reader of the commit. A lease already let go means
//       the commit returned: the next batch waits for it and reads the committed state instead.

/// <summary>Merges concurrent write operations into shared transactions and journal flushes.</summary>
internal sealed partial class TransactionMerger : IDisposable
{
    private readonly CommitPipeline _pipeline;
    private readonly MergerSeams _seams;
    private readonly FailureSink _failures;
    private readonly StorageEnvironmentOptions _options;
    private readonly Channel<MergedOperation> _queue;
    private readonly Task _writer;
    private readonly KeyValuePair<string, object?> _tag;
    private readonly OperationSynchronizationContext _context = new(); // used under the write lock only (writer or caller-run batch)

    [ThreadStatic]
    private static TransactionMerger? t_running; // the merger whose operation this thread runs (LC4)

    /// <summary>Whether the calling thread is running one of this merger's operations (LC4).</summary>
    public bool IsRunningOperationOnThisThread => ReferenceEquals(t_running, this);
    private Task<Exception?> _inFlight = NothingInFlight; // the committer's outcome: null = committed (never faults)
    private static readonly Task<Exception?> NothingInFlight = Task.FromResult<Exception?>(null);
    private PreparedCommit? _inFlightCommit;
    private GenerationLease? _inFlightLease; // M9: _inFlightCommit's generation; both written under the write lock
    private volatile bool _closing;
    private MergedOperation? _carried; // writer only: an operation too large for the batch it came in (M8)

    public TransactionMerger(CommitPipeline pipeline, MergerSeams seams, StorageEnvironmentOptions options)
    {
        _pipeline = pipeline;
        _seams = seams;
        _failures = seams.Failures;
        _options = options;
        _tag = VoronMetrics.StoreTag(seams.Path);
        _queue = Channel.CreateBounded<MergedOperation>(new BoundedChannelOptions(options.MaxQueuedOperations)
        {
            SingleReader = false, // the writer may leave a WaitToReadAsync pending while it awaits the in-flight commit
            FullMode = BoundedChannelFullMode.Wait,
        });
        _writer = Task.Run(RunAsync);
    }

    /// <summary>
    /// The commit being written right now, if any (explicit write transactions wait for it): its
    /// outcome, null when it committed, else why it failed. It never faults.
    /// </summary>
    public Task<Exception?> InFlight => Volatile.Read(ref _inFlight);

    /// <summary>
    /// Queues <paramref name="operation"/>. The task returned is the operation's own (M2), so when
    /// Dispose returns every queued operation's task has completed (M3); only a submitter still
    /// waiting for room in a full queue learns of the disposal through its own continuation.
    /// </summary>
    public Task<T> EnqueueAsync<T>(Func<WriteTransaction, T> operation, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(operation);
        return Submit(Admit(new MergedOperation<T>(operation), acknowledged: null), cancellationToken);
    }

    /// <summary>As <see cref="EnqueueAsync{T}"/> for an operation without a result.</summary>
    public Task EnqueueAsync(Action<WriteTransaction> operation, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(operation);
        return Submit(Admit(new MergedOperation<bool>(operation), acknowledged: null), cancellationToken);
    }

    /// <summary>Runs <paramref name="merged"/> on this thread when the merger is idle (MG1, MG2), else queues it.</summary>
    private Task<T> Submit<T>(MergedOperation<T> merged, CancellationToken cancellationToken)
    {
        merged.Arm(cancellationToken);
        if (SynchronizationContext.Current == null && TryRunOnCaller(merged, out var write)) // MG1, MG2: an idle merger lets the submitting thread run the batch
        {
            write?.Run(); // MG4: claimed at once, so the task returned has completed
            return merged.Task;
        }

        return Queue(merged, cancellationToken);
    }

    /// <summary>What every submission checks (M6, a usable store) before its operation is run or queued.</summary>
    private MergedOperation<T> Admit<T>(MergedOperation<T> merged, Action<Exception?>? acknowledged)
    {
        if (AsyncOperationRefusal.IsAwaitable<T>())
        {
            throw AsyncOperationRefusal.Refuse("operation"); // M6
        }

        _seams.ThrowIfUnusable();
        merged.Acknowledged = acknowledged;
        return merged;
    }

    /// <summary>Puts <paramref name="merged"/> in the queue, or waits for room in it (M4).</summary>
    private Task<T> Queue<T>(MergedOperation<T> merged, CancellationToken cancellationToken) =>
        _queue.Writer.TryWrite(merged) ? merged.Task : WaitForRoomAsync(merged, cancellationToken);

    /// <summary>M4: the queue is full; wait for room (or cancellation, or disposal).</summary>
    private async Task<T> WaitForRoomAsync<T>(MergedOperation<T> merged, CancellationToken cancellationToken)
    {
        try
        {
            await _queue.Writer.WriteAsync(merged, cancellationToken).ConfigureAwait(false);
        }
        catch (ChannelClosedException)
        {
            // M2: the operation itself fails, so its acknowledgement (MergedOperation.Acknowledged)
            // hears of it too, not only the task returned here. Canceled first: it stays canceled.
            if (merged.TryStart())
            {
                merged.Fail(ClosedError());
            }
        }

        return await merged.Task.ConfigureAwait(false);
    }

    private async Task RunAsync()
    {
        var reader = _queue.Reader;
        try
        {
            while (_carried != null || await reader.WaitToReadAsync().ConfigureAwait(false))
            {
                if (_closing || _failures.Failure != null)
                {
                    break;
                }

                await RunBatchAsync(reader).ConfigureAwait(false);
            }
        }
        catch (Exception e)
        {
            // M7: the writer met an exception outside the places that expect one (a bug, an
            // out-of-memory between batches). It cannot go on, and a store whose merger stopped
            // must say so rather than refuse writes as if disposed: fail-stop, reported.
            _failures.Fail(e);
        }
        finally
        {
            // M5: close the queue before draining it. A submission that passed the usability
            // check just before a failure, or waited for room, either entered the queue before
            // this line (the drain below fails it) or finds the queue closed: none is left behind.
            _queue.Writer.TryComplete();
            await WaitForInFlightQuietly().ConfigureAwait(false);
            var error = ClosedError();
            _carried?.Fail(error);
            _carried = null;
            while (reader.TryRead(out var left))
            {
                if (left.TryStart())
                {
                    left.Fail(error);
                }
            }
        }
    }

    /// <summary>Why the queue no longer takes operations: the environment failed, or it is being disposed.</summary>
    private Exception ClosedError() => _failures.Failure is { } failure
        ? new EnvironmentFailedException(_seams.Path, failure)
        : _seams.Disposing();

    private async Task RunBatchAsync(ChannelReader<MergedOperation> reader)
    {
        try
        {
            await _seams.WriteLock.WaitAsync(_seams.Closing).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            return; // LC1: Dispose began while an explicit transaction held the lock; RunAsync drains (M3)
        }

        var released = false;
        var lease = new GenerationLease(_seams.EnterGeneration(), _seams.ExitGeneration); // PT7: the batch reads page versions like any transaction
        var leaseHandedOver = false;
        GenerationLease? previousLease = null;
        try
        {
            var previous = _options.AsyncCommit && !InFlight.IsCompleted ? Volatile.Read(ref _inFlightCommit) : null;
            if (previous != null)
            {
                // M9: its pages are read through it from here on, so its generation must still be counted.
                previousLease = Volatile.Read(ref _inFlightLease);
                if (previousLease == null || !previousLease.TryAcquire())
                {
                    previousLease = null;
                    previous = null; // its WriteAndPublish returned: build on the committed state
                }
            }

            if (previous == null)
            {
                await WaitForInFlightQuietly().ConfigureAwait(false);
            }

            var operations = new List<MergedOperation>();
            PreparedCommit? prepared;
            try
            {
                var transaction = await ExecuteAsync(reader, previous, operations).ConfigureAwait(false);
                if (operations.Count == 0)
                {
                    return;
                }

                prepared = _pipeline.Prepare(transaction);
                Volatile.Write(ref _lastBatchOperations, operations.Count); // caller runs only after a batch of one
            }
            catch (Exception e)
            {
                // M5: nothing of this batch was written; it fails, and the writer goes on.
                foreach (var operation in operations)
                {
                    operation.Fail(e);
                }

                return;
            }

            if (previous != null && await ClaimInFlight().ConfigureAwait(false) != null) // C1, C4: N - 1 first (MG4: running it if nobody has)
            {
                prepared?.ReleaseDiffArena(); // built on a commit that failed: never written
                if (_failures.Failure != null)
                {
                    FailAll(operations, _failures.FailWith(_failures.Failure));
                    return;
                }

                // C4, C5: N - 1 failed cleanly, so this batch was built on a state that never
                // committed. Its operations run again on the committed state (M1).
                try
                {
                    var rebuilt = Rerun(_seams.Committed(), null, operations);
                    if (operations.Count == 0)
                    {
                        return;
                    }

                    prepared = _pipeline.Prepare(rebuilt);
                }
                catch (Exception e)
                {
                    FailAll(operations, e);
                    return;
                }
            }

            if (_options.AsyncCommit)
            {
                var commit = Task.Run(() => CommitAndAcknowledge(prepared, operations, lease)); // M9: the commit holds the batch's generation
                leaseHandedOver = true;
                Volatile.Write(ref _inFlightCommit, prepared);
                Volatile.Write(ref _inFlightLease, lease);
                Volatile.Write(ref _inFlight, commit);
                _seams.WriteLock.Release();
                released = true;
            }
            else
            {
                CommitAndAcknowledge(prepared, operations);
            }
        }
        finally
        {
            if (!leaseHandedOver)
            {
                lease.Release();
            }

            previousLease?.Release();
            if (!released)
            {
                _seams.WriteLock.Release();
            }
        }
    }

    /// <summary>
    /// Runs queued operations into one transaction, isolating failures (M1), and adds those that
    /// succeeded to <paramref name="operations"/> (the caller's list, so it knows them if this
    /// throws). While the previous batch is still being flushed (async commit), an empty queue does
    /// not end the batch: it keeps taking operations that arrive until that flush completes — the
    /// overlap async commit buys.
    /// </summary>
    private async Task<LowLevelTransaction> ExecuteAsync(ChannelReader<MergedOperation> reader, PreparedCommit? previous, List<MergedOperation> operations)
    {
        var committed = previous?.AsBase() ?? _seams.Committed();
        var transaction = _seams.BeginTransaction(committed, previous);
        var started = Stopwatch.GetTimestamp();
        var inFlight = previous != null ? InFlight : Task.CompletedTask;
        while (operations.Count < _options.MaxBatchOperations &&
               transaction.DirtyBytes < _options.MaxBatchBytes &&
               Stopwatch.GetElapsedTime(started) < _options.MaxBatchDuration)
        {
            MergedOperation? operation;
            if (_carried != null)
            {
                (operation, _carried) = (_carried, null); // M8: it goes first, already started
            }
            else if (!reader.TryRead(out operation))
            {
                if (inFlight.IsCompleted || _closing)
                {
                    break;
                }

                StartUnclaimedCallerWrite(); // MG4: this wait must not be for a write nobody runs
                var arrival = reader.WaitToReadAsync().AsTask();
                await Task.WhenAny(arrival, inFlight).ConfigureAwait(false);
                continue;
            }
            else if (!operation.TryStart())
            {
                continue; // canceled before it started
            }

            var before = transaction.DirtyBytes;
            try
            {
                Run(operation, transaction);
            }
            catch (Exception e)
            {
                operation.Fail(e);
                transaction = Rerun(committed, previous, operations);
                continue;
            }

            if (operations.Count > 0 && transaction.DirtyBytes - before >= _options.MaxBatchBytes)
            {
                // M8: an operation larger than a batch runs in a batch of its own: this batch
                // runs again without it, and it opens the next one.
                _carried = operation;
                transaction = Rerun(committed, previous, operations);
                break;
            }

            operations.Add(operation);
        }

        return transaction;
    }

    /// <summary>A fresh transaction with <paramref name="operations"/> run again; drops (and fails) any that now throw.</summary>
    private LowLevelTransaction Rerun(CommittedState committed, PreparedCommit? previous, List<MergedOperation> operations)
    {
        while (true)
        {
            var transaction = _seams.BeginTransaction(committed, previous);
            var failed = -1;
            for (var i = 0; i < operations.Count && failed < 0; i++)
            {
                try
                {
                    Run(operations[i], transaction);
                }
                catch (Exception e)
                {
                    operations[i].Fail(e);
                    failed = i;
                }
            }

            if (failed < 0)
            {
                return transaction;
            }

            operations.RemoveAt(failed);
        }
    }

    /// <summary>
    /// Runs one operation on a view of the batch's transaction that closes when the delegate
    /// returns (T7), under a context that catches an async void delegate (M6).
    /// </summary>
    private void Run(MergedOperation operation, LowLevelTransaction transaction)
    {
        var facade = _seams.OperationView(transaction);
        var outer = SynchronizationContext.Current;
        _context.Reset();
        SynchronizationContext.SetSynchronizationContext(_context);
        t_running = this;
        try
        {
            operation.Execute(facade);
        }
        finally
        {
            t_running = null;
            SynchronizationContext.SetSynchronizationContext(outer);
            facade.EndOperation();
        }

        if (_context.AsyncVoidStarted)
        {
            throw new NotSupportedException("The operation is an async void delegate (an async lambda passed as an Action). " + AsyncOperationRefusal.Message);
        }
    }

    /// <summary>
    /// Writes and publishes one batch and completes its operations (C2). Returns null when it
    /// committed, else the failure, already reported to the operations; never throws.
    /// <paramref name="lease"/>, the batch's generation (M9), is let go once WriteAndPublish returned.
    /// </summary>
    private Exception? CommitAndAcknowledge(PreparedCommit? prepared, List<MergedOperation> operations, GenerationLease? lease = null)
    {
        try
        {
            try
            {
                if (prepared != null)
                {
                    _pipeline.WriteAndPublish(prepared);
                }
            }
            finally
            {
                lease?.Release(); // M9: from here a batch that finds this lease let go waits for this commit instead of building on it
            }
        }
        catch (Exception e)
        {
            FailAll(operations, e);
            return e;
        }

        foreach (var operation in operations)
        {
            operation.Complete();
        }

        // After the acknowledgements, off their latency: a caller that awaited its operation may
        // not see its batch counted yet; once Dispose returned, every batch is (M3).
        VoronMetrics.RecordSafely(() =>
        {
            VoronMetrics.Batches.Add(1, _tag);
            VoronMetrics.Operations.Add(operations.Count, _tag);
            VoronMetrics.OperationsPerBatch.Record(operations.Count, _tag);
        });
        return null;
    }

    /// <summary>
    /// Fails every operation of a batch: with <see cref="EnvironmentFailedException"/> when the
    /// store failed, else (a clean failure, C5) with the exception itself.
    /// </summary>
    private void FailAll(List<MergedOperation> operations, Exception error)
    {
        var failure = error is EnvironmentFailedException || _failures.Failure == null ? error : _failures.FailWith(_failures.Failure);
        foreach (var operation in operations)
        {
            operation.Fail(failure);
        }
    }

    /// <summary>Waits for the in-flight commit; its outcome was reported to its own operations (it never throws).</summary>
    private async Task WaitForInFlightQuietly() => await ClaimInFlight().ConfigureAwait(false); // MG4

    /// <summary>The merger's state in one line, for hang reports and debugging.</summary>
    public string Describe() =>
        $"merger: writer {_writer.Status}, in-flight commit {InFlight.Status}, {(_queue.Reader.CanCount ? _queue.Reader.Count.ToString(System.Globalization.CultureInfo.InvariantCulture) : "?")} queued, " +
        $"caller-run batches {Volatile.Read(ref _callerRunning)}, closing {_closing}, queue {(_queue.Reader.Completion.IsCompleted ? "closed" : "open")}, environment {(_failures.Failure is { } f ? "failed: " + f.Message : "usable")}";

    /// <summary>Stops taking operations and waits for the writer to finish (M3).</summary>
    public void Dispose()
    {
        _closing = true;
        Interlocked.MemoryBarrier(); // MG3: a caller-run batch that missed the flag is counted, and waited for below
        _queue.Writer.TryComplete();
        _writer.GetAwaiter().GetResult();
        WaitForCallerRuns();
        ClaimInFlight().GetAwaiter().GetResult(); // MG4: a caller-run write published after the writer's last wait
    }
}
