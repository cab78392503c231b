namespace Voron.Transactions;

/// <summary>
/// One caller's write operation waiting in the merger's queue: the delegate, the task the caller
/// awaits, and the cancellation that applies until it starts.
/// </summary>
internal abstract class MergedOperation
{
    private const int Queued = 0;
    private const int Started = 1;
    private const int Canceled = 2;
    private int _stage;
    private CancellationTokenRegistration _registration;

    /// <summary>
    /// Called once, on the thread that completes the operation (the committer, or a caller-run
    /// batch's claimer), with null when it is durable, else why it failed or was canceled, once
    /// the task has completed (its continuations run on the thread pool meanwhile). For a
    /// submitter that waits on its own terms
    /// (the SQLite VFS publishes its version as durable here): saves the thread hop a
    /// continuation costs. Must be short and must not throw.
    /// </summary>
    public Action<Exception?>? Acknowledged { get; set; }

    /// <summary>Arms cancellation: until the operation starts, the token cancels it.</summary>
    public void Arm(CancellationToken cancellationToken)
    {
        if (cancellationToken.CanBeCanceled)
        {
            _registration = cancellationToken.Register(static (state, token) =>
            {
                var operation = (MergedOperation)state!;
                if (Interlocked.CompareExchange(ref operation._stage, Canceled, Queued) == Queued)
                {
                    operation.SetCanceled(token);
                }
            }, this);
        }
    }

    /// <summary>Claims the operation for execution; false if it was canceled first.</summary>
    public bool TryStart()
    {
        var started = Interlocked.CompareExchange(ref _stage, Started, Queued) == Queued;
        _registration.Dispose();
        return started;
    }

    /// <summary>Runs the delegate, keeping its result for <see cref="Complete"/>.</summary>
    public abstract void Execute(WriteTransaction transaction);

    /// <summary>Acknowledges the operation: its transaction is durable (C2).</summary>
    public abstract void Complete();

    public abstract void Fail(Exception error);

    protected abstract void SetCanceled(CancellationToken token);
}

/// <summary>A merged operation with a result (or, made from an action, with none: its result stays default).</summary>
internal sealed class MergedOperation<T> : MergedOperation
{
    private readonly TaskCompletionSource<T> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Func<WriteTransaction, T>? _function;
    private readonly Action<WriteTransaction>? _action;
    private T _result = default!;

    public MergedOperation(Func<WriteTransaction, T> function) => _function = function;

    /// <summary>An operation without a result, run as it is: no closure made per operation to give it one.</summary>
    public MergedOperation(Action<WriteTransaction> action) => _action = action;

    public Task<T> Task => _completion.Task;

    public override void Execute(WriteTransaction transaction)
    {
        if (_action != null)
        {
            _action(transaction);
            return;
        }

        _result = _function!(transaction);
        if (typeof(T) == typeof(object) && _result is IAsyncResult or ValueTask)
        {
            throw new NotSupportedException("The operation returned a task. " + AsyncOperationRefusal.Message); // M6
        }
    }

    public override void Complete()
    {
        if (_completion.TrySetResult(_result))
        {
            Acknowledged?.Invoke(null);
        }
    }

    public override void Fail(Exception error)
    {
        if (_completion.TrySetException(error))
        {
            Acknowledged?.Invoke(error);
        }
    }

    protected override void SetCanceled(CancellationToken token)
    {
        if (_completion.TrySetCanceled(token))
        {
            Acknowledged?.Invoke(new OperationCanceledException(token));
        }
    }
}
