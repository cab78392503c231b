namespace Voron.Transactions;

/// <summary>
/// The synchronization context a merged operation runs under, so that an <c>async void</c>
/// delegate (an <c>async</c> lambda passed as an <see cref="Action{T}"/>) is caught when it
/// starts — the async method builder announces itself through <see cref="OperationStarted"/> —
/// and its operation is failed before the batch commits (M6). Continuations posted while the
/// operation runs are held until its transaction view is closed (<see cref="Close"/>), so the
/// rest of such a delegate can never touch the batch's transaction from another thread while it
/// is still open; then they run on the thread pool, as without a context. An exception one of
/// them throws (the rest of a refused async void delegate touching its closed transaction) is
/// dropped, because the operation already failed with the reason.
/// </summary>
internal sealed class OperationSynchronizationContext : SynchronizationContext
{
    private readonly Lock _lock = new();
    private List<(SendOrPostCallback Callback, object? State)>? _held;
    private bool _open;

    public bool AsyncVoidStarted { get; private set; }

    /// <summary>An operation starts under this context: posts are held until <see cref="Close"/>.</summary>
    public void Open()
    {
        AsyncVoidStarted = false;
        lock (_lock)
        {
            _open = true;
        }
    }

    /// <summary>The operation's transaction view is closed: what it posted runs now, and later posts run at once.</summary>
    public void Close()
    {
        List<(SendOrPostCallback Callback, object? State)>? held;
        lock (_lock)
        {
            _open = false;
            held = _held;
            _held = null;
        }

        foreach (var post in held ?? [])
        {
            Dispatch(post);
        }
    }

    public override void OperationStarted() => AsyncVoidStarted = true;

    public override void Post(SendOrPostCallback d, object? state)
    {
        lock (_lock)
        {
            if (_open)
            {
                (_held ??= []).Add((d, state));
                return;
            }
        }

        Dispatch((d, state));
    }

    public override SynchronizationContext CreateCopy() => this;

    private static void Dispatch((SendOrPostCallback Callback, object? State) post) =>
        ThreadPool.UnsafeQueueUserWorkItem(static s =>
        {
            var (callback, callbackState) = s;
            try
            {
                callback(callbackState);
            }
#pragma warning disable CA1031 // see the summary: the operation was already failed with the reason
            catch (Exception)
#pragma warning restore CA1031
            {
            }
        }, post, preferLocal: false);
}
