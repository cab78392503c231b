namespace Voron.Tests.Documents.Subscriptions;

/// <summary>
/// The oracle of the subscription crash test: whether the subscription's creation was
/// acknowledged, and its acknowledgements in order (each the EndPosition of a batch saved through
/// its session). After recovery the stored position must be the last acknowledged one (0 before
/// any), or the end of the one attempted after it and not acknowledged (in flight when the power
/// went).
/// </summary>
internal sealed class SubscriptionCrashModel
{
    private readonly object _lock = new();
    private long _acknowledged;
    private long? _inFlight;

    public bool Created { get; private set; }

    public void CreateAcknowledged()
    {
        lock (_lock)
        {
            Created = true;
        }
    }

    public void Attempt(long endPosition)
    {
        lock (_lock)
        {
            _inFlight = endPosition;
        }
    }

    public void Acknowledge(long endPosition)
    {
        lock (_lock)
        {
            _acknowledged = endPosition;
            _inFlight = null;
        }
    }

    /// <summary>The positions the recovered subscription may hold.</summary>
    public IReadOnlyList<long> Allowed
    {
        get
        {
            lock (_lock)
            {
                return _inFlight is { } flying ? [_acknowledged, flying] : [_acknowledged];
            }
        }
    }
}
