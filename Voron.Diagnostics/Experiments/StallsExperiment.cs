using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using Voron.LoadTests.Data;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Reporting;
using Voron.Transactions;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// Where an open loop's stalls come from: durable 1 KiB writes through the merger started on a
/// fixed schedule, as <c>merge</c>'s open loop starts them, with a timestamp of every phase that
/// could hold one up: the dispatcher's lateness (the CPU scheduler), each commit's journal write
/// and fdatasync (the <c>CommitStep</c> hook at <c>JournalWrite</c> and
/// <c>Journaled</c>), each flush to the data file (<c>OnFlush</c>, with its duration), and the
/// runtime's GC pauses. Every write over 10 ms from its schedule joins a stall episode (writes
/// within 50 ms of each other), and each episode lists what overlapped it. Times are
/// CLOCK_MONOTONIC seconds, the clock <c>Voron.LoadTests/tools/syncloop.c</c> prints, so a C
/// fdatasync loop run beside it lines up. Settings from the environment: <c>VORON_STALLS_RATE</c>
/// (writes/s, default 1000), <c>VORON_STALLS_SECONDS</c> (default 30; 5 with --quick),
/// <c>VORON_STALLS_ASYNC</c> (0 = merged, default 1 = merged+async), <c>VORON_STALLS_KEYS</c>
/// (random or sequential, default random).
/// </summary>
internal sealed class StallsExperiment : IExperiment
{
    private const double StallMs = 10;
    private const double EpisodeGapMs = 50;

    private readonly int? _rate;
    private readonly int? _seconds;

    /// <param name="rate">Writes per second; default from the environment (tests pass a low one).</param>
    /// <param name="seconds">Seconds of writes; default from the environment.</param>
    public StallsExperiment(int? rate = null, int? seconds = null)
    {
        _rate = rate;
        _seconds = seconds;
    }

    public string Name => "stalls";

    public string Description => "open-loop stall trace: every write, journal fdatasync, data-file flush and GC pause on one clock";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var rate = _rate ?? Setting("VORON_STALLS_RATE", 1000);
        var seconds = _seconds ?? Setting("VORON_STALLS_SECONDS", context.Quick ? 5 : 30);
        var asyncCommit = Setting("VORON_STALLS_ASYNC", 1) != 0;
        var pattern = KeyPattern.Parse(Environment.GetEnvironmentVariable("VORON_STALLS_KEYS") ?? "random");
        var report = context.NewReport(Name, "Open-loop stalls: what overlapped each");
        report.AddFact("rate", rate);
        report.AddFact("seconds", seconds);
        report.AddFact("mode", asyncCommit ? "merged+async" : "merged");
        report.AddFact("keys", pattern.Name);

        var journal = new ConcurrentQueue<(long Start, long End)>();
        var flushes = new ConcurrentQueue<(long End, TimeSpan Duration, long Pages)>();
        long journalStart = 0;
        var options = context.Disk.VoronOptions(context.NewDirectory("stalls"));
        options.AsyncCommit = asyncCommit;
        options.CommitHook = step =>
        {
            if (step == CommitStep.JournalWrite)
            {
                Volatile.Write(ref journalStart, Stopwatch.GetTimestamp()); // C1: one commit writes at a time
            }
            else if (step == CommitStep.Journaled)
            {
                journal.Enqueue((Volatile.Read(ref journalStart), Stopwatch.GetTimestamp()));
            }
        };
        options.OnFlush = f => flushes.Enqueue((Stopwatch.GetTimestamp(), f.Duration, f.Pages));

        var count = (int)(rate * seconds);
        var scheduled = new long[count];
        var started = new long[count];
        var completed = new long[count];
        var pauses = new TimeSpan[count];
        var value = new byte[1024];
        new Random(23).NextBytes(value);
        using (var env = StorageEnvironment.Open(options))
        {
            await env.ExecuteAsync(tx => tx.CreateTree("t")).ConfigureAwait(false);
            var tasks = new Task[count];
            var origin = Stopwatch.GetTimestamp() + Stopwatch.Frequency / 10;
            var gcBefore = GC.GetTotalPauseDuration();
            for (var i = 0; i < count; i++)
            {
                var due = origin + (long)(i * Stopwatch.Frequency / (double)rate);
                while (Stopwatch.GetTimestamp() < due)
                {
                    var wait = (due - Stopwatch.GetTimestamp()) * 1000 / Stopwatch.Frequency;
                    if (wait >= 2)
                    {
                        Thread.Sleep((int)wait - 1);
                    }
                    else
                    {
                        Thread.SpinWait(50);
                    }
                }

                scheduled[i] = due;
                started[i] = Stopwatch.GetTimestamp();
                var index = i;
                var key = pattern.Key(0, i);
                tasks[i] = env.ExecuteAsync(tx => tx.OpenTree("t")!.Put(key, value)).ContinueWith(_ =>
                {
                    completed[index] = Stopwatch.GetTimestamp();
                    pauses[index] = GC.GetTotalPauseDuration();
                }, TaskContinuationOptions.ExecuteSynchronously);
            }

            await Task.WhenAll(tasks).ConfigureAwait(false);
            report.AddFact("gcPauseMs", (GC.GetTotalPauseDuration() - gcBefore).TotalMilliseconds);
        }

        Analyze(context, report, scheduled, started, completed, pauses, [.. journal], [.. flushes]);
        return report;
    }

    private static void Analyze(ExperimentContext context, Report report, long[] scheduled, long[] started, long[] completed, TimeSpan[] pauses,
        (long Start, long End)[] journal, (long End, TimeSpan Duration, long Pages)[] flushes)
    {
        static double Ms(long ticks) => ticks * 1000.0 / Stopwatch.Frequency;
        static double At(long timestamp) => timestamp / (double)Stopwatch.Frequency;
        var latency = scheduled.Select((s, i) => Ms(completed[i] - s)).ToArray();
        var sorted = latency.Order().ToArray();
        var syncs = journal.Select(j => Ms(j.End - j.Start)).Order().ToArray();
        report.AddFact("p50Ms", sorted[sorted.Length / 2]);
        report.AddFact("p99Ms", sorted[sorted.Length * 99 / 100]);
        report.AddFact("maxMs", sorted[^1]);
        report.AddFact("journalWrites", syncs.Length);
        report.AddFact("journalWriteP50Ms", syncs.Length > 0 ? syncs[syncs.Length / 2] : 0);
        report.AddFact("journalWriteP99Ms", syncs.Length > 0 ? syncs[syncs.Length * 99 / 100] : 0);
        report.AddFact("journalWriteMaxMs", syncs.Length > 0 ? syncs[^1] : 0);
        report.AddFact("flushes", flushes.Length);
        report.AddFact("flushMaxMs", flushes.Length > 0 ? flushes.Max(f => f.Duration.TotalMilliseconds) : 0);

        var causes = new Dictionary<string, int>(StringComparer.Ordinal);
        var i = 0;
        while (i < latency.Length)
        {
            if (latency[i] <= StallMs)
            {
                i++;
                continue;
            }

            var first = i;
            var last = i;
            while (i < latency.Length && (latency[i] > StallMs || Ms(scheduled[i] - scheduled[last]) < EpisodeGapMs))
            {
                if (latency[i] > StallMs)
                {
                    last = i;
                }

                i++;
            }

            var from = scheduled[first];
            var to = completed.Skip(first).Take(last - first + 1).Max();
            var worst = latency.Skip(first).Take(last - first + 1).Max();
            var late = Enumerable.Range(first, last - first + 1).Max(k => Ms(started[k] - scheduled[k]));
            var longestSync = journal.Where(j => j.End > from && j.Start < to).Select(j => Ms(j.End - j.Start)).DefaultIfEmpty(0).Max();
            var flush = flushes.Where(f => f.End > from && f.End - (long)(f.Duration.TotalSeconds * Stopwatch.Frequency) < to)
                .Select(f => f.Duration.TotalMilliseconds).DefaultIfEmpty(0).Max();
            var before = first > 0 ? pauses[first - 1] : TimeSpan.Zero;
            var gc = (pauses.Skip(first).Take(last - first + 1).Max() - before).TotalMilliseconds;
            var cause = longestSync >= worst / 2 ? "journal fdatasync"
                : late >= worst / 2 ? "dispatcher woke late (CPU)"
                : gc >= worst / 4 ? "GC pause"
                : flush > 0 ? "data-file flush overlapped"
                : "other (queueing, thread-pool wake-ups)";
            causes[cause] = causes.GetValueOrDefault(cause) + 1;
            report.AddRow(
                ("atSeconds", Math.Round(At(from), 3)),
                ("writes", last - first + 1),
                ("worstMs", Math.Round(worst, 2)),
                ("dispatcherLateMs", Math.Round(late, 2)),
                ("longestJournalWriteMs", Math.Round(longestSync, 2)),
                ("flushMs", Math.Round(flush, 2)),
                ("gcPauseMs", Math.Round(gc, 2)),
                ("cause", cause));
        }

        foreach (var (cause, episodes) in causes)
        {
            report.AddFact("episodes." + cause, episodes);
        }

        context.Progress(string.Format(CultureInfo.InvariantCulture, "stalls: p50 {0:F2} p99 {1:F2} max {2:F1} ms; journal write p99 {3:F2} max {4:F1} ms; episodes: {5}",
            sorted[sorted.Length / 2], sorted[sorted.Length * 99 / 100], sorted[^1], syncs.Length > 0 ? syncs[syncs.Length * 99 / 100] : 0,
            syncs.Length > 0 ? syncs[^1] : 0, string.Join(", ", causes.Select(c => $"{c.Key} {c.Value}"))));
    }

    private static int Setting(string name, int fallback) =>
        int.TryParse(Environment.GetEnvironmentVariable(name), NumberStyles.Integer, CultureInfo.InvariantCulture, out var value) && value >= 0 ? value : fallback;
}
