using System.Diagnostics;
using Voron.LoadTests.Measurement.Interop;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// Open-loop load: operations start on a fixed schedule (operation i at <c>start + i / rate</c>),
/// not when an earlier one ends, and each one's latency runs from its scheduled start to its
/// completion. A closed loop lets a slow system slow its own callers down, so queueing hides
/// (coordinated omission); here a late dispatch, a full queue or a slow commit all show up as
/// latency. The dispatcher is one thread that sleeps (<see cref="PreciseSleep"/>) until the next
/// operation is due, waking at most every <see cref="MinimumSleep"/> and then starting every
/// operation that is due; operations run asynchronously (the dispatcher never waits for one).
/// </summary>
internal static class OpenLoop
{
    /// <summary>The shortest sleep between dispatches: bounds the dispatcher's wake-ups to 20,000 a second.</summary>
    internal static readonly TimeSpan MinimumSleep = TimeSpan.FromMicroseconds(50);

    /// <summary>
    /// Starts <paramref name="operation"/>(i) for i = 0, 1, ... at <paramref name="ratePerSecond"/>
    /// for <paramref name="duration"/>, then waits for every operation to finish.
    /// </summary>
    public static async Task<OpenLoopResult> RunAsync(double ratePerSecond, TimeSpan duration, Func<long, Task> operation)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(ratePerSecond);
        var count = Math.Max(1, (long)(ratePerSecond * duration.TotalSeconds));
        var latencies = new double[count];
        var pending = new List<Task>();
        var failures = 0L;
        long lastCompletion = 0;
        var interval = Stopwatch.Frequency / ratePerSecond;
        var minimumSleep = (long)(MinimumSleep.TotalSeconds * Stopwatch.Frequency);
        Exception? dispatchError = null;
        var start = 0L;
        // Set by the dispatcher when it has started the last operation. Awaited, not joined: a
        // thread-pool thread blocked in Join would starve the pool that completes the operations
        // (measured: stalls of up to a second at 250 writes/s on 2 cores).
        var dispatched = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        var dispatcher = new Thread(() =>
        {
            try
            {
                start = Stopwatch.GetTimestamp();
                for (long i = 0; i < count;)
                {
                    var now = Stopwatch.GetTimestamp();
                    for (; i < count && start + (long)(i * interval) <= now; i++)
                    {
                        var due = start + (long)(i * interval);
                        var task = operation(i);
                        if (task.IsCompleted)
                        {
                            Record(task, i, due);
                        }
                        else
                        {
                            pending.Add(CompleteAsync(task, i, due));
                        }
                    }

                    if (i < count)
                    {
                        PreciseSleep.Until(Math.Max(start + (long)(i * interval), Stopwatch.GetTimestamp() + minimumSleep));
                    }
                }
            }
#pragma warning disable CA1031 // Carried back to the caller's thread and rethrown there.
            catch (Exception e)
#pragma warning restore CA1031
            {
                dispatchError = e;
            }
            finally
            {
                dispatched.SetResult();
            }
        })
        {
            IsBackground = true,
            Name = "open-loop dispatcher",
            Priority = ThreadPriority.AboveNormal,
        };
        dispatcher.Start();
        await dispatched.Task.ConfigureAwait(false);
        if (dispatchError != null)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(dispatchError);
        }

        await Task.WhenAll(pending).ConfigureAwait(false);
        var sample = new LatencySample();
        foreach (var latency in latencies)
        {
            sample.Add(latency);
        }

        var seconds = (Interlocked.Read(ref lastCompletion) - start) / (double)Stopwatch.Frequency;
        return new OpenLoopResult(ratePerSecond, count, Interlocked.Read(ref failures), sample, seconds);

        async Task CompleteAsync(Task task, long index, long due)
        {
            try
            {
                await task.ConfigureAwait(false);
            }
#pragma warning disable CA1031 // Counted; an experiment fails a run with failed operations.
            catch (Exception)
#pragma warning restore CA1031
            {
            }

            Record(task, index, due);
        }

        void Record(Task task, long index, long due)
        {
            var now = Stopwatch.GetTimestamp();
            latencies[index] = (now - due) * 1000.0 / Stopwatch.Frequency;
            if (!task.IsCompletedSuccessfully)
            {
                Interlocked.Increment(ref failures);
            }

            long seen;
            while ((seen = Interlocked.Read(ref lastCompletion)) < now && Interlocked.CompareExchange(ref lastCompletion, now, seen) != seen)
            {
            }
        }
    }
}

/// <summary>What one open-loop run did: latencies from each operation's scheduled start to its completion.</summary>
/// <param name="OfferedPerSecond">The arrival rate asked for.</param>
/// <param name="Operations">Operations started (and finished).</param>
/// <param name="Failures">Operations that ended with an exception.</param>
/// <param name="Latency">Milliseconds from scheduled start to completion, one per operation.</param>
/// <param name="Seconds">From the first scheduled start to the last completion.</param>
internal sealed record OpenLoopResult(double OfferedPerSecond, long Operations, long Failures, LatencySample Latency, double Seconds)
{
    /// <summary>Completed operations per second, over the whole run including the time to drain the queue at the end.</summary>
    public double AchievedPerSecond => Seconds > 0 ? Operations / Seconds : 0;
}
