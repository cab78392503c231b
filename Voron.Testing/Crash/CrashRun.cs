namespace Voron.Testing.Crash;

/// <summary>
/// One run of a scenario: a store in <see cref="Directory"/> over a <see cref="CrashFileSystem"/>,
/// with every transaction recorded in a <see cref="StoreModel"/> before it commits and
/// acknowledged in it when the engine acknowledges it. Scenarios call these methods and nothing
/// else; when the machine loses power mid-scenario the call throws and the harness takes over.
/// </summary>
internal sealed class CrashRun(CrashFileSystem fileSystem, StoreModel model, Action<StorageEnvironmentOptions>? tune = null)
{
    public const string Directory = "/store";

    private readonly List<MergedOperation> _merged = [];
    private StorageEnvironment? _environment;

    public CrashFileSystem FileSystem { get; } = fileSystem;

    public StoreModel Model { get; } = model;

    public StorageEnvironment Environment => _environment ?? throw new InvalidOperationException("The scenario has not opened the store.");

    /// <summary>The open store, or null when none is open (never opened, or its open failed).</summary>
    public StorageEnvironment? OpenEnvironment => _environment;

    /// <summary>The options every crash test opens a store with: no background flush (the scenario decides
    /// when the data file is written, so runs are repeatable), small journal files.</summary>
    public static StorageEnvironmentOptions Options(CrashFileSystem fileSystem, Action<StorageEnvironmentOptions>? tune)
    {
        var options = StorageEnvironmentOptions.ForFileSystem(Directory, fileSystem);
        options.BackgroundFlush = false;
        options.JournalFileSize = 64 * 1024;
        options.MaxDataFileSize = 512L << 20;
        tune?.Invoke(options);
        return options;
    }

    public void Open()
    {
        if (_environment != null)
        {
            throw new InvalidOperationException("The store is already open.");
        }

        _environment = StorageEnvironment.Open(Options(FileSystem, tune));
    }

    /// <summary>One explicit write transaction with <paramref name="changes"/>: attempted before Commit, acknowledged when it returns.</summary>
    public void Commit(params Change[] changes)
    {
        using var transaction = Environment.BeginWrite();
        foreach (var change in changes)
        {
            change.ApplyTo(transaction);
        }

        Model.Attempt(transaction.Id, transaction, changes);
        transaction.Commit();
        if (Environment.LastCommittedTransactionId == transaction.Id)
        {
            Model.Acknowledge(transaction.Id, transaction);
        }
        else
        {
            Model.Withdraw(transaction.Id, transaction); // it changed nothing, so it committed nothing
        }
    }

    /// <summary>
    /// Submits <paramref name="changes"/> to the transaction merger. The task completes when the
    /// engine acknowledges them. With <paramref name="fail"/> the operation makes its changes and
    /// then throws: they must never become visible (M1).
    /// </summary>
    public Task ExecuteAsync(IReadOnlyList<Change> changes, bool fail = false)
    {
        var operation = new MergedOperation(changes, fail);
        lock (_merged)
        {
            _merged.Add(operation);
        }

        operation.Task = Environment.ExecuteAsync(transaction =>
        {
            foreach (var change in changes)
            {
                change.ApplyTo(transaction);
            }

            Volatile.Write(ref operation.Batch, transaction.Low); // the batch's transaction: the same object for every operation in it
            Volatile.Write(ref operation.TransactionId, transaction.Id);
            if (fail)
            {
                throw new IntentionalOperationFailure();
            }
        });
        return operation.Task;
    }

    /// <summary>
    /// Waits for a scenario's caller tasks; their failures propagate (a crash ends them). A caller
    /// still running after <see cref="CrashHarness.SettleTimeout"/> is a hang: the failure names
    /// the merger's state.
    /// </summary>
    public void WaitForCallers(IReadOnlyList<Task> callers)
    {
        if (!Task.WaitAll([.. callers], CrashHarness.SettleTimeout))
        {
            int pending;
            lock (_merged)
            {
                pending = _merged.Count(m => m.Task is { IsCompleted: false });
            }

            throw new CrashCheckException($"{callers.Count(c => !c.IsCompleted)} of {callers.Count} callers still running after {CrashHarness.SettleTimeout.TotalSeconds} s " +
                $"({pending} merged operations pending; {OpenEnvironment?.DescribeMerger() ?? "no store open"}): a hang");
        }
    }

    /// <summary>
    /// J14: the journal leaves its current file before it is full, as a store that ships its
    /// archive does once the file's first record is ArchiveMaxDelay old (Archive/TimelyRelease.cs);
    /// nothing when the file holds no record.
    /// </summary>
    public void LeaveJournalFile() => Environment.Journal.StartNewFile(Environment.Journal.Current.File);

    public void Flush()
    {
        Environment.FlushToDataFile();
        Model.MarkDurable(Environment.LastFlushedTransactionId);
    }

    /// <summary>A clean close (final flush) and open.</summary>
    public void Reopen()
    {
        var environment = Environment;
        _environment = null;
        var committed = environment.LastCommittedTransactionId;
        environment.Dispose();
        if (!FileSystem.HasCrashed && FileSystem.Faults == null)
        {
            Model.MarkDurable(committed); // a clean close syncs the journal and flushes (Dispose hides a failure there)
        }

        Open();
        CheckNothingLostByRestart("a clean close");
    }

    /// <summary>The process dies and starts again (the OS keeps every write: no power loss) and recovers.</summary>
    public void RestartProcess()
    {
        var environment = Environment;
        _environment = null;
        environment.CloseWithoutFlush();
        Open();
        CheckNothingLostByRestart("a process restart");
    }

    /// <summary>Without a power loss the OS keeps every write: reopening must find every acknowledged commit, in both durability modes.</summary>
    private void CheckNothingLostByRestart(string what)
    {
        Settle(CrashHarness.SettleTimeout);
        if (Environment.LastCommittedTransactionId != Model.LastAcknowledged)
        {
            throw new CrashCheckException($"after {what} the store is at transaction {Environment.LastCommittedTransactionId}, but {Model.LastAcknowledged} was acknowledged");
        }
    }

    /// <summary>
    /// Waits for the merged operations submitted so far (a hang is a failure) and records in the
    /// model what each attempted and whether it was acknowledged. Call it once the run is over
    /// (after a failure or a crash, nothing more is submitted).
    /// </summary>
    public void Settle(TimeSpan timeout)
    {
        List<MergedOperation> merged;
        lock (_merged)
        {
            merged = [.. _merged];
            _merged.Clear();
        }

        var tasks = merged.Select(m => m.Task).OfType<Task>().ToArray();
        try
        {
            if (!Task.WaitAll(tasks, timeout))
            {
                throw new CrashCheckException($"{tasks.Count(t => !t.IsCompleted)} merged operations did not complete within {timeout} after the run ended " +
                    $"({_environment?.DescribeMerger() ?? "no store open"}): a hang");
            }
        }
        catch (AggregateException)
        {
            // Failed operations are expected after a crash; their outcome is read below.
        }

        foreach (var operation in merged)
        {
            var id = Volatile.Read(ref operation.TransactionId);
            if (id == 0 || operation.Fail)
            {
                continue;
            }

            var batch = Volatile.Read(ref operation.Batch)!;
            if (operation.Task!.IsCompletedSuccessfully)
            {
                Model.Attempt(id, batch, operation.Changes);
                Model.Acknowledge(id, batch);
            }
            else if (operation.Task.Exception?.InnerException is not IntentionalOperationFailure)
            {
                Model.Attempt(id, batch, operation.Changes); // it may be the in-flight transaction
            }
        }
    }

    /// <summary>
    /// Ends the run after a crash or at its end: <see cref="Settle"/>, then closes the store as a
    /// dead process would (no flush; errors from the dead machine ignored).
    /// </summary>
    public void Finish(TimeSpan timeout)
    {
        Settle(timeout);
        try
        {
            _environment?.CloseWithoutFlush();
        }
        catch (Exception e) when (e is IOException or EnvironmentFailedException or ObjectDisposedException or AggregateException)
        {
            // The machine is dead; the next open recovers.
        }

        _environment = null;
    }

    private sealed class MergedOperation(IReadOnlyList<Change> changes, bool fail)
    {
        public long TransactionId;

        public object? Batch;

        public IReadOnlyList<Change> Changes { get; } = changes;

        public bool Fail { get; } = fail;

        public Task? Task { get; set; }
    }
}
