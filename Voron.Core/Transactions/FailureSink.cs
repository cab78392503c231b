using Voron.Diagnostics;

namespace Voron.Transactions;

/// <summary>
/// The store's fail-stop state (C5, FL6, M7): the commit pipeline, the merger and the flusher
/// report failures here, and the store's public front reads it (IsFailed, Failure) and refuses
/// writes while it holds one. The first cause is kept; it is reported once — the
/// <c>voron.store.failures</c> metric and the OnFailure observer (on the thread pool, outside
/// every lock of the engine).
/// </summary>
internal sealed class FailureSink
{
    private readonly string _path;
    private readonly Func<Action<Exception>?> _observer;
    private volatile Exception? _failure;

    /// <summary>Called once, at the failure, before the observer is queued (waiters for commits end: CW1).</summary>
    public Action? Failed { get; init; }

    /// <param name="path">The store's path, for the metric's tag and the exceptions.</param>
    /// <param name="observer">The observer to call at the failure (read then: options may set it late).</param>
    public FailureSink(string path, Func<Action<Exception>?> observer)
    {
        _path = path;
        _observer = observer;
    }

    /// <summary>The exception that failed the store (the first one), or null while it is healthy.</summary>
    public Exception? Failure => _failure;

    /// <summary>Fail-stop: refuse writes until reopened (C5, FL6). Keeps the first cause; reports it once.</summary>
    public void Fail(Exception cause)
    {
        if (Interlocked.CompareExchange(ref _failure, cause, null) != null)
        {
            return;
        }

        Failed?.Invoke();
        VoronMetrics.RecordSafely(() => VoronMetrics.StoreFailures.Add(1, VoronMetrics.StoreTag(_path), new("voron.failure.type", cause.GetType().Name)));
        if (_observer() is { } observer)
        {
            ThreadPool.QueueUserWorkItem(static state =>
            {
                var (callback, exception) = state;
                try
                {
                    callback(exception);
                }
#pragma warning disable CA1031 // an observer's bug must not take the process down; the options say so
                catch (Exception)
#pragma warning restore CA1031
                {
                }
            }, (observer, cause), preferLocal: false);
        }
    }

    /// <summary>Fails the store with <paramref name="cause"/> (or keeps an earlier failure) and returns the exception committers get.</summary>
    public EnvironmentFailedException FailWith(Exception cause)
    {
        Fail(cause);
        return cause as EnvironmentFailedException ?? new EnvironmentFailedException(_path, _failure ?? cause);
    }
}
