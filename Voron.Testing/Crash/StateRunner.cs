using System.Diagnostics;

namespace Voron.Testing.Crash;

/// <summary>
/// Checks many crash states in parallel on dedicated threads (the thread pool stays free for the
/// engine's own tasks), stops early after a handful of failures, and reports a hang — a state
/// that makes no progress (no new <see cref="Stage"/> or <see cref="Step"/>) for
/// <see cref="HangTimeout"/> — instead of waiting forever.
/// </summary>
/// <remarks>
/// A hang guard, not a timing assertion: it is measured from the state's last step, not its
/// start, and is long enough that a state slowed tenfold on a saturated 2-core machine (one took
/// 85 s on a quiet one) is not taken for a hang.
/// </remarks>
internal static class StateRunner
{
    public static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(10);

    private const int MaxFailures = 20;

    [ThreadStatic]
    private static Slot? t_slot;

    /// <summary>
    /// Records what the current crash state is doing (running the scenario, verifying a power
    /// loss...), so that a hang report says where it hung. A no-op outside <see cref="Run"/>.
    /// </summary>
    public static void Stage(string stage)
    {
        if (t_slot is { } slot)
        {
            slot.Stage = stage;
            slot.Step = null;
        }
    }

    /// <summary>Records the step within the current <see cref="Stage"/> (recovery, integrity check...).</summary>
    public static void Step(string step)
    {
        if (t_slot is { } slot)
        {
            slot.Step = step;
        }
    }

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
        var current = Enumerable.Range(0, workers).Select(_ => new Slot()).ToArray();
        var threads = new Thread[workers];
        for (var w = 0; w < workers; w++)
        {
            var worker = w;
            threads[w] = new Thread(() =>
            {
                t_slot = current[worker];
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
                    current[worker].Stage = "starting";
                    current[worker].Step = null;
                    current[worker].Started = Stopwatch.GetTimestamp();
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
                    if (item != null && Stopwatch.GetElapsedTime(current[w].Progressed) > HangTimeout)
                    {
                        lock (failures)
                        {
                            failures.Add($"{item}: no progress for {HangTimeout.TotalSeconds} s: a hang while {current[w].Stage}{(current[w].Step is { } step ? ", at: " + step : "")} (the thread is abandoned)");
                            return (Interlocked.Read(ref states), [.. failures]);
                        }
                    }
                }
            }
        }

        return (states, failures);
    }

    /// <summary>What one worker thread is checking, since when, and at which stage (read by the hang watch).</summary>
    private sealed class Slot
    {
        private string? _item;
        private long _started;
        private long _progressed;
        private string _stage = "idle";
        private string? _step;

        public string? Item { get => Volatile.Read(ref _item); set => Volatile.Write(ref _item, value); }

        public long Started
        {
            get => Volatile.Read(ref _started);
            set
            {
                Volatile.Write(ref _started, value);
                Progressed = value;
            }
        }

        /// <summary>When the state last started, or changed its stage or step: the hang watch measures from here.</summary>
        public long Progressed { get => Volatile.Read(ref _progressed); private set => Volatile.Write(ref _progressed, value); }

        public string Stage
        {
            get => Volatile.Read(ref _stage);
            set
            {
                Volatile.Write(ref _stage, value);
                Progressed = Stopwatch.GetTimestamp();
            }
        }

        public string? Step
        {
            get => Volatile.Read(ref _step);
            set
            {
                Volatile.Write(ref _step, value);
                Progressed = Stopwatch.GetTimestamp();
            }
        }
    }
}
