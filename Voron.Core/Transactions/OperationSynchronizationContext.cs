namespace Voron.Transactions;

/// <summary>
/// The synchronization context a merged operation runs under, so that an <c>async void</c>
/// delegate (an <c>async</c> lambda passed as an <see cref="Action{T}"/>) is caught when it
/// starts — the async method builder announces itself through <see cref="OperationStarted"/> —
/// and its operation is failed before the batch commits (M6). Continuations posted here run on
/// the thread pool, as without a context; an exception one of them throws (the rest of a refused
/// async void delegate touching its closed transaction) is dropped, because the operation already
/// failed with the reason.
/// </summary>
internal sealed class OperationSynchronizationContext : SynchronizationContext
{
    public bool AsyncVoidStarted { get; private set; }

    public void Reset() => AsyncVoidStarted = false;

    public override void OperationStarted() => AsyncVoidStarted = true;

    public override void Post(SendOrPostCallback d, object? state) =>
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
        }, (d, state), preferLocal: false);

    public override SynchronizationContext CreateCopy() => this;
}
