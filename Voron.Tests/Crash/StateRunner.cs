using System.Diagnostics;

namespace Voron.Tests.Crash;

/// <summary>
/// Checks many crash states in parallel on dedicated threads (the thread pool stays free for the
/// engine's own tasks), stops early after a handful of failures, and reports a hang — a state
/// that takes longer than <see cref="HangTimeout"/> — instead of waiting forever.
/// </summary>
internal static class StateRunner
{
    public static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(2);

    private const int MaxFailures = 20;

    /// <summary>
    /// Runs <paramref name="check"/> on each item; it returns the number of crash states it checked
    /// and adds a message per failure. Returns the total of states and every failure.
    /// </summary>
    public static (long States, List<string> Failures) Run<T>(IReadOnlyList<T> items, Func<T, List<string>, int> check, int? degree = null)
    {
        var failures = new List<string>();
        long states = 0;
        var next = -1;
        var workers = Math.Max(1, Math.Min(degree ?? Environment.ProcessorCount, items.Count));
        var current = new (string? Item, long Started)[workers];
        var threads = new Thread[workers];
        for (var w = 0; w < workers; w++)
        {
            var worker = w;
            threads[w] = new Thread(() =>
            {
                while (true)
                {
                    lock (failures)
                    {
                        if (failures.Count >= MaxFailures)
                        {
                            return;
                        }
                    }

                    var index = Interlocked.Increment(ref next);
                    if (index >= items.Count)
                    {
                        return;
                    }

                    var item = items[index];
                    Volatile.Write(ref current[worker].Started, Stopwatch.GetTimestamp());
                    current[worker].Item = item?.ToString();
                    var found = new List<string>();
                    int checkedStates;
                    try
                    {
                        checkedStates = check(item, found);
                    }
                    catch (Exception e)
                    {
                        checkedStates = 1;
                        found.Add($"{item}: the check itself failed: {e}");
                    }

                    Interlocked.Add(ref states, checkedStates);
                    if (found.Count > 0)
                    {
                        lock (failures)
                        {
                            failures.AddRange(found);
                        }
                    }

                    current[worker].Item = null;
                }
            })
            { IsBackground = true, Name = $"crash-states-{w}" };
            threads[w].Start();
        }

        foreach (var thread in threads)
        {
            while (!thread.Join(TimeSpan.FromSeconds(1)))
            {
                for (var w = 0; w < workers; w++)
                {
                    var item = current[w].Item;
                    if (item != null && Stopwatch.GetElapsedTime(Volatile.Read(ref current[w].Started)) > HangTimeout)
                    {
                        lock (failures)
                        {
                            failures.Add($"{item}: no result after {HangTimeout.TotalSeconds} s: a hang (the thread is abandoned)");
                            return (Interlocked.Read(ref states), [.. failures]);
                        }
                    }
                }
            }
        }

        return (states, failures);
    }
}
