namespace Voron.Documents.Subscriptions;

/// <summary>One worker's hold on a subscription (SU2); disposing it, once, lets the next waiter in.</summary>
internal sealed class SubscriptionLease(SemaphoreSlim gate) : IDisposable
{
    private int _released;

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _released, 1) == 0)
        {
            gate.Release();
        }
    }
}
