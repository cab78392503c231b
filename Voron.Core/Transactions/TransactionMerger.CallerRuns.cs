namespace Voron.Transactions;

// Design notes — the caller runs the batch when the merger is idle.
//
// Through the writer task, one caller's durable commit crossed three threads: the submission
// woke the writer (a thread-pool work item), the writer handed the prepared batch to the
// committer (Task.Run), and the committer's acknowledgement resumed the caller (a continuation
// on the pool). With nothing else to merge those hops are pure latency (issue 22: a lone
// caller's save at 0.22 ms against SQLite's 0.13 ms). When the merger is idle the submitting
// thread does the writer's and the committer's work itself, and ExecuteAsync returns a task
// that has already completed.
//
//   TryRunOnCaller (on the submitting thread):
//     idle = no synchronization context on this thread, nothing in flight, the write lock free
//            (taken without waiting), the queue empty, no carried operation (M8), not closing
//     run the one operation on a fresh transaction on the committed state, prepare it
//     async:  publish it as the in-flight commit, release the write lock, WriteAndPublish,
//             acknowledge (the writer may build the next batch on it meanwhile, as after its own)
//     sync:   WriteAndPublish and acknowledge under the write lock
//   not idle: the operation goes to the queue as before (the writer runs it)
//
// Off unless the AppContext switch Voron.Merger.CallerRuns is set (see CallerRunsSwitch for why).
//
// Invariants:
//   MG1. A caller-run batch is a writer batch of one operation: it holds the write lock while it
//        runs and prepares (T1), starts only when no commit is in flight and publishes its own
//        commit as the in-flight one before it releases the lock (C1: the next batch waits for
//        it; C4: a batch built on it runs again if it failed cleanly), and acknowledges only
//        after WriteAndPublish returned (C2, M2). An operation that throws fails alone (M1).
//   MG2. Only a thread with no synchronization context runs a batch inline (a thread-pool
//        thread, a plain thread). A thread whose owner expects ExecuteAsync to return at once
//        — a UI thread, a test framework's context — always queues, so an operation that waits
//        for something its submitter does after submitting still runs on the writer.
//   MG3. Dispose waits for caller-run batches: a submitter counts itself before it reads the
//        closing flag, and Dispose sets the flag before it reads the count (both fenced), so a
//        batch either sees the flag and queues (the queue refuses or drains it: M5) or is
//        counted and finishes, commit included, before Dispose returns (M3).

internal sealed partial class TransactionMerger
{
    private int _callerRunning; // submitters inside TryRunOnCaller (MG3)

    /// <summary>
    /// The AppContext switch that turns caller-run batches on (off by default): set
    /// <c>Voron.Merger.CallerRuns</c> to true in runtimeconfig.json's configProperties, or with
    /// AppContext.SetSwitch before the store opens. Off, every operation goes through the queue.
    /// Off by default because on a loaded 2-core VM (load average ~40, issue 22's measurements)
    /// a lone caller's save was slower inline (p50 3.4–4.0 ms against 0.19–0.23 ms queued, same
    /// build). The thread blocked in fdatasync seemed to wake ~4 ms late (a scheduler tick; the
    /// disk probe's lone thread saw the same), while the queued path's busy pool threads did not.
    /// Measure on a quiet machine before turning it on by default.
    /// </summary>
    public const string CallerRunsSwitch = "Voron.Merger.CallerRuns";

    private readonly bool _callerRuns = AppContext.TryGetSwitch(CallerRunsSwitch, out var enabled) && enabled; // read when the store opens

    /// <summary>
    /// Runs <paramref name="operation"/> as a batch of its own on the calling thread when the
    /// merger is idle (MG1, MG2). True when it did: the operation's task has completed (result,
    /// exception or canceled). False when the operation must be queued.
    /// </summary>
    private bool TryRunOnCaller(MergedOperation operation)
    {
        if (!_callerRuns || SynchronizationContext.Current != null || !InFlight.IsCompleted) // MG2; a commit in flight: not idle
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

                RunBatchOnCaller(operation, ref released);
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

    /// <summary>MG1: the writer's batch and the committer's work for one operation, on the calling thread, which holds the write lock.</summary>
    private void RunBatchOnCaller(MergedOperation operation, ref bool released)
    {
        var generation = _seams.EnterGeneration(); // PT7, as a writer batch
        var exited = false;
        try
        {
            if (!operation.TryStart())
            {
                return; // canceled before it started: its task is canceled
            }

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
                return;
            }

            List<MergedOperation> operations = [operation];
            if (!_options.AsyncCommit)
            {
                CommitAndAcknowledge(prepared, operations); // never throws: its outcome went to the operation
                return;
            }

            var outcome = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);
            Volatile.Write(ref _inFlightCommit, prepared);
            Volatile.Write(ref _inFlight, outcome.Task); // C1: the next batch waits for this one
            _seams.ExitGeneration(generation);
            exited = true;
            _seams.WriteLock.Release();
            released = true;
            try
            {
                outcome.SetResult(CommitAndAcknowledge(prepared, operations));
            }
            catch (Exception e)
            {
                outcome.TrySetResult(e); // M7: never leave the in-flight commit pending
                throw;
            }
        }
        finally
        {
            if (!exited)
            {
                _seams.ExitGeneration(generation);
            }
        }
    }

    /// <summary>MG3: Dispose returns only after every caller-run batch finished, its commit included.</summary>
    private void WaitForCallerRuns()
    {
        var spin = new SpinWait();
        while (Volatile.Read(ref _callerRunning) != 0)
        {
            spin.SpinOnce();
        }
    }
}
