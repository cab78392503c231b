using Voron.LoadTests.Data;
using Voron.LoadTests.Capabilities;

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

            if (saturation.GetValueOrDefault(ConcurrentWriterModes.Merged) is > 0 and var merged)
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

    /// <summary>One mode's saturation rate (<see cref="SaturationSweep.FindAsync"/>), each point a row; 0 if no rate was ok.</summary>
    private static async Task<double> SweepAsync(ExperimentContext context, Report report, OpenLoopSettings settings, string mode, KeyPattern pattern)
    {
        var source = new OpenSource(Open(context, mode, $"open-{pattern.Name}-{mode}"), pattern);
        try
        {
            await source.RunAsync(context, settings.StartRate, settings.WarmUp).ConfigureAwait(false);
            var points = 0;
            var (saturation, reachedMax) = await SaturationSweep.FindAsync(settings.StartRate, settings.Growth, settings.MaxRate, settings.BisectSteps, async rate =>
            {
                var point = await source.RunAsync(context, rate, settings.StepDuration).ConfigureAwait(false);
                report.AddScenario(mode, $"sweep {pattern.Name}", ++points, point.Stats);
                var ok = SaturationSweep.IsOk(point.Stats, point.Offered);
                AddOpenRow(context, report, "sweep", mode, pattern, point.Offered, Pooled.Of([point.Stats]), point.Flushes, ok, share: null, vsMerged: null);
                return ok;
            }).ConfigureAwait(false);

            var limit = reachedMax ? $" (every rate up to {settings.MaxRate:N0}/s was ok)" : "";
            context.Progress($"open   {pattern.Name,-10} {mode,-18} saturation rate {saturation:N0} writes/s{limit}");
            return saturation;
        }
        finally
        {
            Discard(source.Writer);
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
                await source.RunAsync(context, rate, settings.WarmUp).ConfigureAwait(false);
            }

            var load = $"target {pattern.Name} {share:P0}";
            var pooled = sources.ToDictionary(s => s.Writer.Mode, _ => new List<OpenPoint>());
            for (var round = 0; round < settings.TargetRounds; round++)
            {
                foreach (var source in Rotation.For(sources, round))
                {
                    context.Progress($"open   {pattern.Name,-10} {source.Writer.Mode,-18} at {share:P0} of merged's saturation ({rate:N0}/s), round {round + 1} of {settings.TargetRounds} ...");
                    var point = await source.RunAsync(context, rate, settings.TargetDuration).ConfigureAwait(false);
                    report.AddScenario(source.Writer.Mode, load, round + 1, point.Stats);
                    pooled[source.Writer.Mode].Add(point);
                }
            }

            var merged = Pooled.Of([.. pooled[ConcurrentWriterModes.Merged].Select(p => p.Stats)]);
            foreach (var source in sources)
            {
                var points = pooled[source.Writer.Mode];
                var latency = Pooled.Of([.. points.Select(p => p.Stats)]);
                var vsMerged = latency.P99Ms / merged.P99Ms;
                var offered = points[0].Offered;
                var ok = latency.Failures == 0 && latency.P99Ms <= OpenLoopSettings.P99LimitMs && latency.PerSecond >= OpenLoopSettings.KeepUpShare * offered;
                AddOpenRow(context, report, "target", source.Writer.Mode, pattern, offered, latency, points.Sum(p => p.Flushes), ok, share, vsMerged);
                if (source.Writer.Mode == ConcurrentWriterModes.MergedAsync)
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

    private static void AddOpenRow(ExperimentContext context, Report report, string phase, string mode, KeyPattern pattern, double offered, Pooled latency,
        long flushes, bool ok, double? share, double? vsMerged)
    {
        var rounds = phase == "target";
        report.AddRow(
            ("loop", OpenLoopName),
            ("phase", phase),
            ("mode", mode),
            ("keys", pattern.Name),
            ("flushDelayMs", context.Disk.FlushDelayMs),
            ("offeredPerSec", offered),
            ("writesPerSec", latency.PerSecond),
            ("ops", latency.Operations),
            ("p50Ms", latency.P50Ms),
            ("p99Ms", latency.P99Ms),
            ("p999Ms", latency.P999Ms),
            ("maxMs", latency.MaxMs),
            ("minRoundP99Ms", rounds ? latency.MinRoundP99Ms : null),
            ("maxRoundP99Ms", rounds ? latency.MaxRoundP99Ms : null),
            ("opsPerFlush", flushes == 0 ? null : latency.Operations / (double)flushes),
            ("ok", ok),
            ("shareOfMergedSaturation", share),
            ("p99VsMerged", vsMerged));
        context.Progress($"open   {pattern.Name,-10} {mode,-18} offered {offered,9:N0}/s: {latency.PerSecond,9:N0} writes/s, " +
                         $"p50 {latency.P50Ms:F2} ms, p99 {latency.P99Ms:F2} ms, max {latency.MaxMs:F2} ms{(ok ? "" : " (not ok)")}");
    }

    /// <summary>
    /// One mode's store under open load (<see cref="Simulation.Inject"/>: each write's latency runs
    /// from its scheduled start); keys continue from point to point, and each point ends settled,
    /// outside its measured span (as the sweep always did: a point's rate is the rate it kept up with).
    /// </summary>
    private sealed class OpenSource(IConcurrentWriter writer, KeyPattern pattern)
    {
        private static readonly byte[][] Values = [.. Enumerable.Range(0, 64).Select(Value)];
        private long _next;

        public IConcurrentWriter Writer => writer;

        /// <summary>Offers <paramref name="rate"/> writes a second (rounded to a whole number) for <paramref name="duration"/>.</summary>
        public async Task<OpenPoint> RunAsync(ExperimentContext context, double rate, TimeSpan duration)
        {
            var first = _next;
            var flushes = writer.Flushes;
            var offered = Math.Max(1, (int)Math.Round(rate));
            var scenario = PutScenario(writer, c => pattern.Key(0, first + c.InvocationNumber), c => Values[c.InvocationNumber % Values.Length])
                .WithLoadSimulations(Simulation.Inject(offered, TimeSpan.FromSeconds(1), duration));
            var stats = await context.RunScenarioAsync(scenario, $"open {pattern.Name} ").ConfigureAwait(false);
            _next = first + stats.AllRequestCount;
            var point = new OpenPoint(offered, stats, writer.Flushes - flushes);
            writer.Settle();
            return point;
        }
    }

    /// <summary>One open run: the rate offered, its results, and the durable flushes it took.</summary>
    private sealed record OpenPoint(double Offered, ScenarioStats Stats, long Flushes);
}
