namespace Voron.Documents;

public sealed partial class DocumentStore
{
    private readonly CancellationTokenSource _subscriptionsClosing = new(); // cancelled (never disposed) by Dispose: ends subscription waits (SU2)
    private DocumentSubscriptions? _subscriptions;

    /// <summary>The store's subscriptions: named, stored positions in the change feed, each processed by one worker at a time.</summary>
    public DocumentSubscriptions Subscriptions
    {
        get
        {
            if (_subscriptions == null)
            {
                Interlocked.CompareExchange(ref _subscriptions, new DocumentSubscriptions(this, _subscriptionsClosing.Token), null);
            }

            return _subscriptions;
        }
    }
}
