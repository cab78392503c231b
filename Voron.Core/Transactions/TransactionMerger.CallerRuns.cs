namespace Voron.Transactions;

// Design notes — the caller runs the batch when the merger is idle.
//
// Through the writer task, one caller's durable commit crossed four threads: the submission woke
// the writer (a thread-pool work item), the writer handed the prepared batch to the committer
// (Task.Run), the committer's acknowledgement ran the task's continuations on the pool, and those
// woke the caller. With nothing else to merge those hops are pure latency and CPU: a lone SQL
// connection's COMMIT cost several times the CPU of stock SQLite's
// (docs/results/2026-12-06-code-comment-measurements.md). When the merger is idle the submitting
// thread does the writer's and the committer's work itself.
//
//   TryRunOnCaller (on the submitting thread):
//     idle = nothing in flight, the write lock free (taken without waiting), the queue empty, no
//            carried operation (M8), not closing, and (ExecuteAsync only) no synchronization context
//     lone = the last batch held one operation: callers that arrive together (the writer's
//            batches hold several) keep merging, since a batch of one run inline would make the
//            others wait for its own fdatasync
//     run the one operation on a fresh transaction on the committed state, prepare it
//     sync commit:  WriteAndPublish and acknowledge under the write lock (EnqueueAsync only)
//     async commit: publish it as the in-flight commit, its write a CallerWrite left to be
//                   claimed; release the write lock. EnqueueAsync claims and runs the write at
//                   once, so the task it returns has completed. EnqueueDeferred returns the
//                   CallerWrite to its submitter (the SQLite VFS, which holds its database's
//                   write lock while it submits): it claims it after releasing that lock, so
//                   the database's next writer builds on the version while it is written.
//   not idle: the operation goes to the queue (the writer runs it)
//
// The AppContext switch Voron.Merger.CallerRuns set to false turns it off for every store whose
// options are made after (StorageEnvironmentOptions.CallerRuns, which tests set per store). On a
// machine whose cores other processes keep busy the queued path is faster (its pool threads spin
// and keep their cores): docs/results/2026-11-27-core-after.md.
//
// Invariants:
//   MG1. A caller-run batch is a writer batch of one operation: it holds the write lock while it
//        runs and prepares (T1), starts only when no commit is in flight and publishes its own
//        commit as the in-flight one before it releases the lock (C1: the next batch waits for
//        it; C4: a batch built on it runs again if it failed cleanly), and acknowledges only
//        after WriteAndPublish returned (C2, M2). An operation that throws fails alone (M1).
//   MG2. ExecuteAsync runs a batch inline only on a thread with no synchronization context (a
//        thread-pool thread, a plain thread). A thread whose owner expects ExecuteAsync to return
//        at once — a UI thread, a test framework's context — always queues, so an operation that
//        waits for something its submitter does after submitting still runs on the writer.
//   MG3. Dispose waits for caller-run batches: a submitter counts itself before it reads the
//        closing flag, and Dispose sets the flag before it reads the count (both fenced), so a
//        batch either sees the flag and queues (the queue refuses or drains it: M5) or is
//        counted and finishes its run and prepare before Dispose claims the in-flight write (MG4).
//   MG4. A caller-run batch's write runs exactly once, on the first thread to claim it: its
//        submitter, or anyone who waits for the in-flight commit — the writer building on it or
//        starting a batch, an explicit write transaction, Dispose. Every such wait claims first
//        (ClaimInFlight; the writer, which goes on taking operations while it waits, starts it on
//        the thread pool), so nobody waits for a write that no thread will run, whatever the
//        submitter does after submitting.

internal sealed partial class TransactionMerger
{
    private int _callerRunning; // submitters inside TryRunOnCaller (MG3)
    private CallerWrite? _callerWrite; // the newest caller-run batch's write (MG4); claimed once
    private int _lastBatchOperations; // operations in the last batch, the writer's or a caller's: > 1 means callers arrive together
    private long _callerRunBatches; // caller-run batches started (MG1); written under the write lock

    /// <summary>Caller-run batches started since the merger was made (MG1): operations run on their submitting thread.</summary>
    public long CallerRunBatches => Volatile.Read(ref _callerRunBatches);

    /// <summary>
    /// The AppContext switch that turns caller-run batches off when set to false (on otherwise):
    /// in runtimeconfig.json's configProperties, or with AppContext.SetSwitch before the store's
    /// options are made (StorageEnvironmentOptions.CallerRuns). Off, every operation goes
    /// through the queue and the writer task.
    /// </summary>
    public const string CallerRunsSwitch = "Voron.Merger.CallerRuns";


    /// <summary>
    /// MG4: the in-flight commit's outcome, after claiming and running a caller-run batch's write
    /// on this thread if nobody has: what every wait for the in-flight commit must call.
    /// </summary>
    public Task<Exception?> ClaimInFlight()
    {
        Volatile.Read(ref _callerWrite)?.Run();
        return InFlight;
    }

    /// <summary>
    /// MG4, for a wait that goes on taking operations (the writer building on the in-flight
    /// commit): a caller-run write nobody has claimed is started on the thread pool.
    /// </summary>
    private void StartUnclaimedCallerWrite()
    {
        if (Volatile.Read(ref _callerWrite) is { IsClaimed: false } write)
        {
            _ = Task.Run(write.Run);
        }
    }

    /// <summary>
    /// As <see cref="EnqueueAsync{T}"/> for a submitter that must release a lock of its own before
    /// the commit is written: when the merger is idle (and commits are asynchronous) the operation
    /// runs and is prepared on this thread, and <paramref name="write"/> is its write, which the
    /// submitter runs (<see cref="CallerWrite.Run"/>) when it may block; else (or with
    /// <paramref name="mayRunHere"/> false) it is queued and <paramref name="write"/> is null. <paramref name="acknowledged"/> is called once with the
    /// outcome, on the thread that completes it (no continuation hop), after the task completed:
    /// awaiting the task does not wait for the acknowledgement.
    /// </summary>
    public Task EnqueueDeferred(Action<WriteTransaction> operation, Action<Exception?> acknowledged, bool mayRunHere, out CallerWrite? write)
    {
        ArgumentNullException.ThrowIfNull(operation);
        ArgumentNullException.ThrowIfNull(acknowledged);
        var merged = Admit(new MergedOperation<bool>(operation), acknowledged);
        write = null;
        if (mayRunHere && _options.AsyncCommit && TryRunOnCaller(merged, out write))
        {
            return merged.Task;
        }

        return Queue(merged, CancellationToken.None);
    }

    /// <summary>
    /// Runs <paramref name="operation"/> as a batch of its own on the calling thread when the
    /// merger is idle (MG1). True when it did; then <paramref name="write"/> is its write, still to
    /// be claimed (async commit), or null (sync commit: written, and the task has completed).
    /// False when the operation must be queued.
    /// </summary>
    private bool TryRunOnCaller(MergedOperation operation, out CallerWrite? write)
    {
        write = null;
        if (!_options.CallerRuns || !InFlight.IsCompleted || Volatile.Read(ref _lastBatchOperations) > 1) // not idle, or not a lone caller
        {
            return false;
        }

        Interlocked.Increment(ref _callerRunning); // MG3: counted before the closing flag is read
        try
        {
            if (_closing || !_seams.WriteLock.Wait(0))
            {
                return false;
            }

            var released = false;
            try
            {
                // Under the lock (T1): a commit published before the lock was released is seen
                // here; queued or carried operations go first, on the writer.
                if (_closing || _failures.Failure != null || !InFlight.IsCompleted || _carried != null || _queue.Reader.Count != 0)
                {
                    return false;
                }

                write = RunBatchOnCaller(operation, ref released);
                return true;
            }
            finally
            {
                if (!released)
                {
                    _seams.WriteLock.Release();
                }
            }
        }
        finally
        {
            Interlocked.Decrement(ref _callerRunning);
        }
    }

    /// <summary>
    /// MG1: the writer's batch for one operation, on the calling thread, which holds the write
    /// lock. Returns the batch's write, published as the in-flight commit and still to be claimed
    /// (async commit), or null when there is nothing left to run (sync commit, or the operation
    /// failed or was canceled: its task has completed).
    /// </summary>
    private CallerWrite? RunBatchOnCaller(MergedOperation operation, ref bool released)
    {
        var lease = new GenerationLease(_seams.EnterGeneration(), _seams.ExitGeneration); // PT7, M9: as a writer batch
        var handedOver = false;
        try
        {
            if (!operation.TryStart())
            {
                return null; // canceled before it started: its task is canceled
            }

            Volatile.Write(ref _callerRunBatches, _callerRunBatches + 1); // under the write lock: one writer at a time

            PreparedCommit? prepared;
            try
            {
                var transaction = _seams.BeginTransaction(_seams.Committed(), null);
                Run(operation, transaction);
                prepared = _pipeline.Prepare(transaction);
            }
            catch (Exception e)
            {
                operation.Fail(e); // M1: it fails alone; M5: nothing of it was written
                return null;
            }

            List<MergedOperation> operations = [operation];
            Volatile.Write(ref _lastBatchOperations, 1);
            if (!_options.AsyncCommit)
            {
                CommitAndAcknowledge(prepared, operations); // never throws: its outcome went to the operation
                return null;
            }

            var write = new CallerWrite(this, prepared, operations, lease); // M9: the write holds the batch's generation
            handedOver = true;
            Volatile.Write(ref _inFlightCommit, prepared);
            Volatile.Write(ref _inFlightLease, lease);
            Volatile.Write(ref _inFlight, write.Outcome); // C1: the next batch waits for this one
            Volatile.Write(ref _callerWrite, write); // MG4: whoever waits for it claims it
            _seams.WriteLock.Release();
            released = true;
            return write;
        }
        finally
        {
            if (!handedOver)
            {
                lease.Release();
            }
        }
    }

    /// <summary>MG3: Dispose waits until no submitter is inside a caller-run batch's run and prepare.</summary>
    private void WaitForCallerRuns()
    {
        var spin = new SpinWait();
        while (Volatile.Read(ref _callerRunning) != 0)
        {
            spin.SpinOnce();
        }
    }

    /// <summary>
    /// A caller-run batch's write and acknowledgement (MG4): run once, by the first thread that
    /// claims it; its <see cref="Outcome"/> is the in-flight commit's (null: committed).
    /// </summary>
    internal sealed class CallerWrite(TransactionMerger merger, PreparedCommit? prepared, List<MergedOperation> operations, GenerationLease lease)
    {
        private readonly TaskCompletionSource<Exception?> _outcome = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _claimed;

        /// <summary>Completes when the write and acknowledgement are done; never faults.</summary>
        public Task<Exception?> Outcome => _outcome.Task;

        /// <summary>Whether a thread has claimed the write (it may still be running).</summary>
        public bool IsClaimed => Volatile.Read(ref _claimed) != 0;

        /// <summary>Writes, publishes and acknowledges the batch on this thread unless another thread claimed it first.</summary>
        public void Run()
        {
            if (Interlocked.Exchange(ref _claimed, 1) != 0)
            {
                return;
            }

            try
            {
                _outcome.SetResult(merger.CommitAndAcknowledge(prepared, operations, lease));
            }
            catch (Exception e)
            {
                _outcome.TrySetResult(e); // M7: never leave the in-flight commit pending
                throw;
            }
        }
    }
}
