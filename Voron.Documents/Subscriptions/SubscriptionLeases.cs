namespace Voron.Documents.Subscriptions;

// SU2. A subscription has at most one worker at a time in a store: OpenAsync takes the name's
//      lease (a gate of one) before it makes a worker, and disposing the worker releases it.
//      The lease is in memory: one DocumentStore per store in a process (I7), and the store's
//      lock file keeps other processes out, so no other worker can exist. Waiters queue on the
//      gate; closing the store fails them with ObjectDisposedException.

/// <summary>The in-process leases of one store's subscriptions, by name (SU2).</summary>
internal sealed class SubscriptionLeases(CancellationToken closing)
{
    private readonly Dictionary<string, SemaphoreSlim> _gates = new(StringComparer.Ordinal); // guarded by itself

    /// <summary>Takes subscription <paramref name="name"/>'s lease, waiting up to <paramref name="timeout"/> for its holder to release it.</summary>
    public async Task<SubscriptionLease> AcquireAsync(string name, TimeSpan timeout, CancellationToken cancellationToken)
    {
        SemaphoreSlim gate;
        lock (_gates)
        {
            ThrowIfClosed(name);
            if (!_gates.TryGetValue(name, out gate!))
            {
                gate = new SemaphoreSlim(1, 1);
                _gates[name] = gate;
            }
        }

        bool taken;
        using (var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, closing))
        {
            try
            {
                taken = await gate.WaitAsync(timeout, linked.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                throw Closed(name);
            }
        }

        if (!taken)
        {
            throw new SubscriptionInUseException(name);
        }

        if (closing.IsCancellationRequested)
        {
            gate.Release();
            throw Closed(name);
        }

        return new SubscriptionLease(gate);
    }

    /// <summary>Fires when the store closes: every waiter fails; leases held stay valid until their workers are disposed.</summary>
    public CancellationToken Closing => closing;

    private void ThrowIfClosed(string name)
    {
        if (closing.IsCancellationRequested)
        {
            throw Closed(name);
        }
    }

    private static ObjectDisposedException Closed(string name) =>
        new(nameof(DocumentStore), $"The document store was disposed while opening subscription '{name}'.");
}
