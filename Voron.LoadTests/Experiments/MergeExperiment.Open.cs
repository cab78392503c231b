using Voron.LoadTests.Data;
using Voron.LoadTests.Engines;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Experiments;

internal sealed partial class MergeExperiment
{
    private async Task RunOpenLoopAsync(ExperimentContext context, Report report, List<string> modes)
    {
        var settings = _openSettings ?? (context.Quick ? OpenLoopSettings.Quick : OpenLoopSettings.Full);
        report.AddFact("openStepSeconds", settings.StepDuration.TotalSeconds);
        report.AddFact("openTargetRounds", settings.TargetRounds);
        report.AddFact("openTargetSeconds", settings.TargetDuration.TotalSeconds);
        report.AddFact("openP99LimitMs", OpenLoopSettings.P99LimitMs);
        foreach (var pattern in KeyPattern.All)
        {
            var saturation = new Dictionary<string, double>(StringComparer.Ordinal);
            foreach (var mode in modes)
            {
                saturation[mode] = await SweepAsync(context, report, settings, mode, pattern).ConfigureAwait(false);
                report.AddFact($"saturationPerSec.{pattern.Name}.{mode}", saturation[mode]);
            }

            if (saturation.GetValueOrDefault(Merged) is > 0 and var merged)
            {
                foreach (var share in OpenLoopSettings.TargetShares)
                {
                    await RunTargetAsync(context, report, settings, modes, pattern, share, merged * share).ConfigureAwait(false);
                }
            }
            else
            {
                report.AddNote($"Open loop, {pattern.Name} keys: merged kept no sweep rate within the limits, so there are no target points.");
            }
        }
    }

    /// <summary>Rising rates until a point is not ok, then bisection: returns the highest ok rate (0 if none).</summary>
    private static async Task<double> SweepAsync(ExperimentContext context, Report report, OpenLoopSettings settings, string mode, KeyPattern pattern)
    {
        var source = new OpenSource(Open(context, mode, $"open-{pattern.Name}-{mode}"), pattern);
        try
        {
            await source.RunAsync(settings.StartRate, settings.WarmUp).ConfigureAwait(false);

            // Rising rates until two points in a row are not ok (one bad point alone may be a hiccup
            // of the machine: it is reported, and the sweep goes on); the saturation rate is the last
            // ok rate before that pair, refined by bisection towards the first of the pair.
            double ok = 0;
            double? bad = null;
            double? firstBadInARow = null;
            double lastOkBeforeBad = 0;
            for (var rate = settings.StartRate; rate <= settings.MaxRate; rate *= settings.Growth)
            {
                if (await PointAsync(rate).ConfigureAwait(false))
                {
                    ok = rate;
                    firstBadInARow = null;
                    continue;
                }

                if (firstBadInARow != null)
                {
                    bad = firstBadInARow;
                    break;
                }

                firstBadInARow = rate;
                lastOkBeforeBad = ok;
            }

            if (bad != null)
            {
                ok = lastOkBeforeBad;
            }
            else if (firstBadInARow != null)
            {
                bad = firstBadInARow; // the last point was bad: the sweep ended on it
                ok = lastOkBeforeBad;
            }

            for (var step = 0; bad != null && ok > 0 && step < settings.BisectSteps; step++)
            {
                var middle = Math.Sqrt(ok * bad.Value);
                if (await PointAsync(middle).ConfigureAwait(false))
                {
                    ok = middle;
                }
                else
                {
                    bad = middle;
                }
            }

            var limit = bad == null ? $" (every rate up to {settings.MaxRate:N0}/s was ok)" : "";
            context.Progress($"open   {pattern.Name,-10} {mode,-18} saturation rate {ok:N0} writes/s{limit}");
            return ok;
        }
        finally
        {
            Discard(source.Writer);
        }

        async Task<bool> PointAsync(double rate)
        {
            var point = await source.RunAsync(rate, settings.StepDuration).ConfigureAwait(false);
            var ok = IsOk(point.Result);
            AddOpenRow(context, report, "sweep", mode, pattern, point, ok, share: null, vsMerged: null);
            return ok;
        }
    }

    /// <summary>Every mode at one rate: fresh stores, a warm-up each, then interleaved rounds in rotating order.</summary>
    private static async Task RunTargetAsync(ExperimentContext context, Report report, OpenLoopSettings settings, List<string> modes, KeyPattern pattern,
        double share, double rate)
    {
        var sources = new List<OpenSource>();
        try
        {
            foreach (var mode in modes)
            {
                sources.Add(new OpenSource(Open(context, mode, $"target-{pattern.Name}-{mode}-{share:F2}"), pattern));
            }

            foreach (var source in sources)
            {
                await source.RunAsync(rate, settings.WarmUp).ConfigureAwait(false);
            }

            var pooled = sources.ToDictionary(s => s.Writer.Mode, _ => new List<OpenPoint>());
            for (var round = 0; round < settings.TargetRounds; round++)
            {
                foreach (var source in Rotation.For(sources, round))
                {
                    context.Progress($"open   {pattern.Name,-10} {source.Writer.Mode,-18} at {share:P0} of merged's saturation ({rate:N0}/s), round {round + 1} of {settings.TargetRounds} ...");
                    pooled[source.Writer.Mode].Add(await source.RunAsync(rate, settings.TargetDuration).ConfigureAwait(false));
                }
            }

            var merged = Pool(pooled[Merged]);
            foreach (var source in sources)
            {
                var point = Pool(pooled[source.Writer.Mode]);
                var vsMerged = point.Result.Latency.Percentile(99) / merged.Result.Latency.Percentile(99);
                AddOpenRow(context, report, "target", source.Writer.Mode, pattern, point, IsOk(point.Result), share, vsMerged,
                    pooled[source.Writer.Mode].Select(p => p.Result.Latency.Percentile(99)).ToList());
                if (source.Writer.Mode == MergedAsync)
                {
                    report.AddFact($"asyncP99OverMerged.{pattern.Name}.{share:0.##}", vsMerged);
                    report.AddFact($"asyncTargetMet.{pattern.Name}.{share:0.##}", vsMerged <= 0.75);
                }
            }
        }
        finally
        {
            foreach (var source in sources)
            {
                Discard(source.Writer);
            }
        }
    }

    private static bool IsOk(OpenLoopResult result) =>
        result.Failures == 0 && result.Latency.Percentile(99) <= OpenLoopSettings.P99LimitMs &&
        result.AchievedPerSecond >= OpenLoopSettings.KeepUpShare * result.OfferedPerSecond;

    private static OpenPoint Pool(List<OpenPoint> points)
    {
        var latency = new LatencySample();
        points.ForEach(p => latency.AddAll(p.Result.Latency));
        var result = new OpenLoopResult(points[0].Result.OfferedPerSecond, points.Sum(p => p.Result.Operations), points.Sum(p => p.Result.Failures),
            latency, points.Sum(p => p.Result.Seconds));
        return new OpenPoint(result, points.Sum(p => p.Flushes));
    }

    private static void AddOpenRow(ExperimentContext context, Report report, string phase, string mode, KeyPattern pattern, OpenPoint point, bool ok,
        double? share, double? vsMerged, List<double>? roundP99s = null)
    {
        var result = point.Result;
        report.AddRow(
            ("loop", OpenLoopName),
            ("phase", phase),
            ("mode", mode),
            ("keys", pattern.Name),
            ("flushDelayMs", context.Disk.FlushDelayMs),
            ("offeredPerSec", result.OfferedPerSecond),
            ("writesPerSec", result.AchievedPerSecond),
            ("ops", result.Operations),
            ("p50Ms", result.Latency.Median),
            ("p99Ms", result.Latency.Percentile(99)),
            ("p999Ms", result.Latency.Percentile(99.9)),
            ("minRoundP99Ms", roundP99s?.Min()),
            ("maxRoundP99Ms", roundP99s?.Max()),
            ("opsPerFlush", point.Flushes == 0 ? null : result.Operations / (double)point.Flushes),
            ("ok", ok),
            ("shareOfMergedSaturation", share),
            ("p99VsMerged", vsMerged));
        context.Progress($"open   {pattern.Name,-10} {mode,-18} offered {result.OfferedPerSecond,9:N0}/s: {result.AchievedPerSecond,9:N0} writes/s, " +
                         $"p50 {result.Latency.Median:F2} ms, p99 {result.Latency.Percentile(99):F2} ms, p99.9 {result.Latency.Percentile(99.9):F2} ms{(ok ? "" : " (not ok)")}");
    }

    /// <summary>One mode's store under open-loop load; keys continue from point to point, and each point ends settled (untimed).</summary>
    private sealed class OpenSource(IConcurrentWriter writer, KeyPattern pattern)
    {
        private static readonly byte[][] Values = [.. Enumerable.Range(0, 64).Select(Value)];
        private long _next;

        public IConcurrentWriter Writer => writer;

        public async Task<OpenPoint> RunAsync(double rate, TimeSpan duration)
        {
            var first = _next;
            var flushes = writer.Flushes;
            var result = await OpenLoop.RunAsync(rate, duration,
                i => writer.PutAsync(pattern.Key(0, first + i), Values[i % Values.Length])).ConfigureAwait(false);
            _next = first + result.Operations;
            var point = new OpenPoint(result, writer.Flushes - flushes);
            writer.Settle();
            return point;
        }
    }

    private sealed record OpenPoint(OpenLoopResult Result, long Flushes);
}
