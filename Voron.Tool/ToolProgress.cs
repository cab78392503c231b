using System.Diagnostics;
using Spectre.Console;

namespace Voron.Tool;

/// <summary>
/// Progress of a long command on standard error, shared by every command that needs it: a
/// Spectre.Console bar per phase when standard error is a terminal (<see cref="ToolConsole.Interactive"/>),
/// otherwise a plain line when a phase begins, when it ends, and at most one every <see cref="PlainInterval"/> between
/// (logs stay short). The operation reports <see cref="ProgressStep"/>s from any thread.
/// </summary>
internal static class ToolProgress
{
    /// <summary>The least time between two plain progress lines of the same phase.</summary>
    public static readonly TimeSpan PlainInterval = TimeSpan.FromSeconds(2);

    /// <summary>Runs <paramref name="operation"/>, drawing what it reports, and returns its result.</summary>
    public static async Task<T> RunAsync<T>(ToolConsole console, Func<IProgress<ProgressStep>, Task<T>> operation)
    {
        if (!console.Interactive)
        {
            return await operation(new PlainProgress(console.Error)).ConfigureAwait(false);
        }

        T result = default!;
        await console.ErrorConsole().Progress()
            .AutoClear(false)
            .HideCompleted(false)
            .Columns(new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new ElapsedTimeColumn(), new SpinnerColumn())
            .StartAsync(async context =>
            {
                var bars = new BarProgress(context);
                result = await operation(bars).ConfigureAwait(false);
                bars.Complete();
            }).ConfigureAwait(false);
        return result;
    }

    /// <summary>Lines on a log or a pipe.</summary>
    private sealed class PlainProgress(TextWriter error) : IProgress<ProgressStep>
    {
        private readonly Lock _lock = new();
        private readonly Stopwatch _sinceLine = Stopwatch.StartNew();
        private string? _phase;
        private long _lastDone = -1;

        public void Report(ProgressStep value)
        {
            lock (_lock)
            {
                var finished = value.Total > 0 && value.Done >= value.Total;
                if (value.Phase == _phase && (_lastDone == value.Done || (!finished && _sinceLine.Elapsed < PlainInterval)))
                {
                    return; // a phase's first and last reports are printed, and one every PlainInterval between
                }

                _phase = value.Phase;
                _lastDone = value.Done;
                _sinceLine.Restart();
                error.WriteLine(value.Total > 0
                    ? $"{value.Phase}: {value.Done:N0} of {value.Total:N0} {value.Unit} ({100.0 * value.Done / value.Total:F0}%)"
                    : $"{value.Phase}: {value.Done:N0} {value.Unit}");
            }
        }
    }

    /// <summary>One Spectre.Console task per phase; a phase with no known total is drawn as indeterminate.</summary>
    private sealed class BarProgress(ProgressContext context) : IProgress<ProgressStep>
    {
        private readonly Lock _lock = new();
        private readonly Dictionary<string, ProgressTask> _tasks = new(StringComparer.Ordinal);
        private ProgressTask? _current;

        public void Report(ProgressStep value)
        {
            lock (_lock)
            {
                if (!_tasks.TryGetValue(value.Phase, out var task))
                {
                    if (_current is { } previous)
                    {
                        previous.Value = previous.MaxValue; // a phase ends when the next begins
                        previous.StopTask();
                    }

                    task = context.AddTask(Markup.Escape(value.Phase));
                    _tasks.Add(value.Phase, task);
                    _current = task;
                }

                task.IsIndeterminate = value.Total <= 0;
                task.MaxValue = Math.Max(1, value.Total);
                task.Value = Math.Min(value.Done, task.MaxValue);
                task.Description = Markup.Escape(value.Total > 0
                    ? $"{value.Phase} ({value.Done:N0}/{value.Total:N0} {value.Unit})"
                    : $"{value.Phase} ({value.Done:N0} {value.Unit})");
                context.Refresh();
            }
        }

        public void Complete()
        {
            lock (_lock)
            {
                foreach (var task in _tasks.Values)
                {
                    task.IsIndeterminate = false;
                    task.Value = task.MaxValue;
                    task.StopTask();
                }
            }
        }
    }
}

/// <summary>One progress report: <paramref name="Done"/> of <paramref name="Total"/> (0: not known) <paramref name="Unit"/> in <paramref name="Phase"/>.</summary>
internal readonly record struct ProgressStep(string Phase, long Done, long Total, string Unit);
