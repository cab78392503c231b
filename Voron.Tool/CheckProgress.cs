using System.Diagnostics;
using Spectre.Console;

namespace Voron.Tool;

/// <summary>
/// Shows how far the page check has come on standard error: a Spectre.Console bar on a terminal,
/// otherwise a line at most every few seconds (a log must not fill with a line per page). Reports
/// arrive on the checking thread, so this is a plain <see cref="IProgress{T}"/>, not
/// <see cref="Progress{T}"/> (which would post them to the thread pool, late and out of order).
/// </summary>
internal sealed class CheckProgress : IProgress<IntegrityProgress>
{
    private static readonly TimeSpan LineInterval = TimeSpan.FromSeconds(5);

    private readonly TextWriter? _lines;
    private readonly ProgressTask? _bar;
    private readonly Stopwatch _sinceLine = Stopwatch.StartNew();

    private CheckProgress(TextWriter? lines, ProgressTask? bar)
    {
        _lines = lines;
        _bar = bar;
    }

    /// <summary>Runs <paramref name="check"/> with progress shown as <paramref name="console"/> allows.</summary>
    public static T Run<T>(ToolConsole console, string what, Func<IProgress<IntegrityProgress>, T> check)
    {
        if (!console.Interactive)
        {
            console.Error.WriteLine($"{what}...");
            return check(new CheckProgress(console.Error, bar: null));
        }

        return console.ErrorConsole().Progress()
            .Columns(new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new RemainingTimeColumn())
            .Start(context => check(new CheckProgress(lines: null, context.AddTask(what))));
    }

    public void Report(IntegrityProgress value)
    {
        if (_bar != null)
        {
            _bar.MaxValue = Math.Max(1, value.TotalPages);
            _bar.Value = value.PagesChecked;
            return;
        }

        if (_lines != null && _sinceLine.Elapsed >= LineInterval)
        {
            _sinceLine.Restart();
            var percent = value.TotalPages == 0 ? 100 : value.PagesChecked * 100 / value.TotalPages;
            _lines.WriteLine($"  {percent}% ({InspectOutput.Count(value.PagesChecked)} of {InspectOutput.Count(value.TotalPages)} pages)");
        }
    }
}
