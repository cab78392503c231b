namespace Voron.Documents;

/// <summary>How a <see cref="SubscriptionWorker"/> reads and how long opening it waits for another worker.</summary>
public sealed class SubscriptionWorkerOptions
{
    /// <summary>The most changes one batch holds (1..100,000).</summary>
    public int MaxBatchSize { get; set; } = 256;

    /// <summary>Whether each change carries the document's JSON (<see cref="DocumentChange.Json"/>).</summary>
    public bool IncludeJson { get; set; } = true;

    /// <summary>
    /// How long <see cref="DocumentSubscriptions.OpenAsync"/> waits while another worker holds the
    /// subscription, then throws <see cref="SubscriptionInUseException"/>; zero: not at all;
    /// <see cref="Timeout.InfiniteTimeSpan"/> (the default): until it is released.
    /// </summary>
    public TimeSpan WaitTimeout { get; set; } = Timeout.InfiniteTimeSpan;

    internal SubscriptionWorkerOptions Validated()
    {
        if (MaxBatchSize is < 1 or > 100_000)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxBatchSize), MaxBatchSize, "A batch holds 1 to 100,000 changes.");
        }

        if (WaitTimeout < TimeSpan.Zero && WaitTimeout != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(WaitTimeout), WaitTimeout, "A wait is zero or more, or Timeout.InfiniteTimeSpan.");
        }

        if (WaitTimeout.TotalMilliseconds > int.MaxValue)
        {
            throw new ArgumentOutOfRangeException(nameof(WaitTimeout), WaitTimeout, "A wait is at most int.MaxValue milliseconds, or Timeout.InfiniteTimeSpan.");
        }

        return new SubscriptionWorkerOptions { MaxBatchSize = MaxBatchSize, IncludeJson = IncludeJson, WaitTimeout = WaitTimeout };
    }
}
