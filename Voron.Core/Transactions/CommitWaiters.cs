namespace Voron.Transactions;

/// <summary>
/// Callers waiting for a commit to become visible (<see cref="StorageEnvironment.WaitForCommitAsync"/>).
/// </summary>
/// <remarks>
/// CW1. A waiter is woken by every commit made visible after it registered, by the store's
///      disposal and by its failure: it registers (publishes the pending signal) before it reads
///      the last visible id, and the commit reads the signal after it publishes the id, each side
///      with a full fence between its write and its read, so at least one of them sees the other.
/// CW2. A commit with nobody waiting costs one interlocked exchange and allocates nothing: the
///      signal is made by the first waiter and shared by all waiters until the next commit.
/// </remarks>
internal sealed class CommitWaiters
{
    private TaskCompletionSource? _signal;
    private volatile Func<Exception>? _terminal;

    /// <summary>CW1, CW2: called after a commit became visible.</summary>
    public void Signal() => Interlocked.Exchange(ref _signal, null)?.TrySetResult();

    /// <summary>
    /// Ends every present and future wait that is not satisfied yet with the exception
    /// <paramref name="reason"/> makes (disposal, failure; a fresh one per waiter, so awaiters do not
    /// share a stack trace); the first reason is kept.
    /// </summary>
    public void Terminate(Func<Exception> reason)
    {
        Interlocked.CompareExchange(ref _terminal, reason, null);
        Signal();
    }

    /// <summary>Completes when <paramref name="lastVisible"/> returns more than <paramref name="afterTransactionId"/>.</summary>
    public async Task WaitAsync(Func<long> lastVisible, long afterTransactionId, CancellationToken cancellationToken)
    {
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var signal = Volatile.Read(ref _signal);
            if (signal == null)
            {
                var made = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                signal = Interlocked.CompareExchange(ref _signal, made, null) ?? made; // CW1: a full fence before the read below
            }

            if (lastVisible() > afterTransactionId)
            {
                return;
            }

            if (_terminal is { } terminal)
            {
                throw terminal();
            }

            await signal.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }
}
