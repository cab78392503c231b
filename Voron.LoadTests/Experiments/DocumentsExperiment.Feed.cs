using System.Collections.Concurrent;
using Voron.LoadTests.Capabilities.Documents;
using Voron.LoadTests.Experiments.Documents;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// The change feed's rows, Voron.Documents only:
/// <list type="bullet">
/// <item><c>feed-read</c>: the history of the bulk-loaded documents read through
/// <c>DocumentStore.Changes(0)</c>, without and with their JSON (<c>includeJson</c>), in interleaved
/// rounds; changes per second.</item>
/// <item><c>feed-latency</c>: 1,000 saves per second paced (open loop: each save starts at its due
/// time whether or not the earlier ones completed), one live consumer reading <c>Changes</c> from
/// before the first; for each save, the time from its <c>SaveChangesAsync</c> completing to its
/// change arriving, matched by the version the save returned; p50 and p99.</item>
/// <item><c>feed-cost</c>: inserts at 64 callers on a store with the feed on and one with it off
/// (<c>ChangeFeed.Enabled</c>), interleaved rounds, the order alternating; the on store's rate over
/// the off store's (vsFeedOff).</item>
/// </list>
/// </summary>
internal sealed partial class DocumentsExperiment
{
    internal const int FeedLatencyRate = 1000;
    internal const int FeedCostCallers = 64;

    /// <summary>A hang guard for waits on the feed, not a timing target: far beyond any expected wait.</summary>
    private static readonly TimeSpan FeedHangGuard = TimeSpan.FromMinutes(5);

    private bool Reports(string workload) => _workloads.Contains(workload);

    private static async Task RunFeedReadAsync(ExperimentContext context, IChangeFeedEngine engine, long documents, int rounds, List<(string Column, object? Value)[]>? rows)
    {
        var seconds = new double[2];
        var read = new long[2];
        var costs = new ProcessCost[2];
        for (var round = 0; round < rounds; round++)
        {
            foreach (var mode in round % 2 == 0 ? new[] { 0, 1 } : [1, 0])
            {
                var includeJson = mode == 1;
                var cost = ProcessCost.Start();
                var clock = Stopwatch.StartNew();
                using var guard = new CancellationTokenSource(FeedHangGuard);
                long changes = 0;
                await foreach (var change in engine.Store.Changes(0, includeJson: includeJson, cancellationToken: guard.Token).ConfigureAwait(false))
                {
                    if (includeJson && change.Json == null)
                    {
                        throw new InvalidOperationException($"feed-read: change {change.Version} ({change.Id}) came without its JSON.");
                    }

                    if (++changes == documents)
                    {
                        break; // the bulk insert's changes: the history, not the live tail
                    }
                }

                seconds[mode] += clock.Elapsed.TotalSeconds;
                read[mode] += changes;
                var spent = cost.Stop();
                costs[mode] = new ProcessCost(costs[mode].Cpu + spent.Cpu, costs[mode].AllocatedBytes + spent.AllocatedBytes);
            }
        }

        for (var mode = 0; mode < 2; mode++)
        {
            var includeJson = mode == 1;
            var rate = read[mode] / seconds[mode];
            Progress(context, rows, $"voron    feed-read   includeJson {includeJson}: {rate,11:N0} changes/s over {rounds} rounds of {documents:N0}");
            rows?.Add([
                ("engine", DocumentEngineCatalog.Voron), ("workload", DocumentWorkloads.FeedRead), ("callers", 1), ("ops", read[mode]), ("opsPerSec", rate),
                ("p50Ms", null), ("p99Ms", null),
                ("cpuUsPerOp", costs[mode].CpuMicrosecondsPer(read[mode])), ("allocBytesPerOp", costs[mode].AllocatedBytesPer(read[mode])),
                ("variant", includeJson ? "includeJson true" : "includeJson false"),
                ("target", FeedTargets.DescribeRead(includeJson)), ("met", FeedTargets.MetRead(includeJson, rate))]);
        }
    }

    private static async Task RunFeedLatencyAsync(ExperimentContext context, IChangeFeedEngine engine, long documents, TimeSpan duration, List<(string Column, object? Value)[]>? rows)
    {
        var count = (int)Math.Max(10, FeedLatencyRate * duration.TotalSeconds);
        var first = await engine.SaveAsync(FeedProfile(documents, "start", 0)).ConfigureAwait(false); // the consumer starts after it: only this run's saves
        var arrived = new ConcurrentDictionary<long, long>();
        using var stop = new CancellationTokenSource(FeedHangGuard);
        var consumer = Task.Run(async () =>
        {
            await foreach (var change in engine.Store.Changes(first, cancellationToken: stop.Token).ConfigureAwait(false))
            {
                arrived[change.Version] = Stopwatch.GetTimestamp();
            }
        });

        var versions = new long[count];
        var completed = new long[count];
        var saves = new Task[count];
        var cost = ProcessCost.Start();
        var start = Stopwatch.GetTimestamp();
        var interval = (double)Stopwatch.Frequency / FeedLatencyRate;
        for (var next = 0; next < count;)
        {
            // Open loop: start every save that is due, whether or not the earlier ones completed.
            var now = Stopwatch.GetTimestamp();
            while (next < count && start + (long)(next * interval) <= now)
            {
                var i = next++;
                saves[i] = SaveAsync(i);
            }

            if (next < count)
            {
                await Task.Delay(1).ConfigureAwait(false);
            }
        }

        await Task.WhenAll(saves).ConfigureAwait(false);
        var elapsed = Stopwatch.GetElapsedTime(start);
        while (!versions.All(arrived.ContainsKey))
        {
            stop.Token.ThrowIfCancellationRequested();
            await Task.Delay(1).ConfigureAwait(false);
        }

        await stop.CancelAsync().ConfigureAwait(false);
        try
        {
            await consumer.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
        }

        var spent = cost.Stop();
        var latency = new LatencySample();
        var early = 0;
        for (var i = 0; i < count; i++)
        {
            var ticks = arrived[versions[i]] - completed[i];
            early += ticks < 0 ? 1 : 0;
            latency.AddTicks(Math.Max(0, ticks)); // the change came before the save's continuation ran: no wait at all
        }

        var rate = count / elapsed.TotalSeconds;
        Progress(context, rows, $"voron    feed-latency {FeedLatencyRate:N0} saves/s offered, {rate:N0} done: p50 {latency.Median:F3} ms, p99 {latency.Percentile(99):F3} ms, " +
                         $"max {latency.Percentile(100):F3} ms, {early} changes arrived before their save completed");
        rows?.Add([
            ("engine", DocumentEngineCatalog.Voron), ("workload", DocumentWorkloads.FeedLatency), ("callers", 1), ("ops", (long)count), ("opsPerSec", rate),
            ("p50Ms", latency.Median), ("p99Ms", latency.Percentile(99)),
            ("cpuUsPerOp", spent.CpuMicrosecondsPer(count)), ("allocBytesPerOp", spent.AllocatedBytesPer(count)),
            ("variant", $"{FeedLatencyRate:N0} saves/s open loop, 1 consumer, {early} before the save completed"),
            ("target", FeedTargets.DescribeLatency()), ("met", FeedTargets.MetLatency(latency.Percentile(99)))]);

        async Task SaveAsync(int i)
        {
            versions[i] = await engine.SaveAsync(FeedProfile(documents, "latency", i)).ConfigureAwait(false);
            completed[i] = Stopwatch.GetTimestamp();
        }
    }

    private static async Task RunFeedCostAsync(ExperimentContext context, string prefix, long documents, TimeSpan duration, int rounds, List<(string Column, object? Value)[]>? rows)
    {
        using var on = await DocumentEngineCatalog.OpenChangeFeedAsync(context.NewDirectory(prefix + "feed-on"), changeFeed: true).ConfigureAwait(false);
        using var off = await DocumentEngineCatalog.OpenChangeFeedAsync(context.NewDirectory(prefix + "feed-off"), changeFeed: false).ConfigureAwait(false);
        var engines = new[] { on, off };
        var ops = new long[2];
        var seconds = new double[2];
        var costs = new ProcessCost[2];
        var latencies = new List<ScenarioStats>[] { [], [] };
        var each = TimeSpan.FromTicks(Math.Max(duration.Ticks / rounds, TimeSpan.FromMilliseconds(20).Ticks));
        for (var round = 0; round < rounds; round++)
        {
            foreach (var mode in round % 2 == 0 ? new[] { 0, 1 } : [1, 0])
            {
                var engine = engines[mode];
                var scenario = DocumentScenarios.Closed(engine, DocumentWorkloads.Insert, FeedCostCallers, each, settle: true, async (handle, caller, sequence) =>
                {
                    var profile = ProfileDataSet.Create(documents + (round * 100_000_000L) + (caller * 1_000_000L) + sequence);
                    profile.Id = $"feed-cost/{round}/{caller}/{sequence}";
                    await handle.InsertAsync(profile).ConfigureAwait(false);
                    return Response.Ok();
                });
                var cost = ProcessCost.Start();
                var stats = await LoadRunner.RunAsync(scenario).ConfigureAwait(false);
                var spent = cost.Stop();
                if (stats.FailuresExcept() > 0)
                {
                    var failure = stats.StatusCodes.First(s => s.IsError);
                    throw new InvalidOperationException($"feed-cost ({(mode == 0 ? "feed on" : "feed off")}) failed: {failure.Count} x {failure.StatusCode}: {failure.Message}");
                }

                ops[mode] += stats.Ok.Count;
                seconds[mode] += stats.Seconds;
                costs[mode] = new ProcessCost(costs[mode].Cpu + spent.Cpu, costs[mode].AllocatedBytes + spent.AllocatedBytes);
                latencies[mode].Add(stats);
            }
        }

        var rates = new[] { ops[0] / seconds[0], ops[1] / seconds[1] };
        var pooled = latencies.Select(runs => LatencyStats.Pooled(runs.Select(s => s.Ok))).ToArray(); // the rounds' histograms added
        var ratio = rates[0] / rates[1];
        Progress(context, rows, $"voron    feed-cost   {FeedCostCallers} callers: feed on {rates[0]:N0} inserts/s, off {rates[1]:N0} inserts/s, on/off {ratio:F3} ({rounds} interleaved rounds)");
        for (var mode = 0; mode < 2; mode++)
        {
            var feedOn = mode == 0;
            rows?.Add([
                ("engine", DocumentEngineCatalog.Voron), ("workload", DocumentWorkloads.FeedCost), ("callers", FeedCostCallers), ("ops", ops[mode]), ("opsPerSec", rates[mode]),
                ("p50Ms", pooled[mode].P50Ms), ("p99Ms", pooled[mode].P99Ms),
                ("cpuUsPerOp", costs[mode].CpuMicrosecondsPer(ops[mode])), ("allocBytesPerOp", costs[mode].AllocatedBytesPer(ops[mode])),
                ("variant", feedOn ? "feed on" : "feed off"),
                ("vsFeedOff", feedOn ? ratio : null),
                ("target", feedOn ? FeedTargets.DescribeCost() : null), ("met", feedOn ? FeedTargets.MetCost(ratio) : null)]);
        }
    }

    /// <summary>Progress of a reported run (the warm-up, which keeps no rows, is quiet).</summary>
    private static void Progress(ExperimentContext context, List<(string Column, object? Value)[]>? rows, string message)
    {
        if (rows != null)
        {
            context.Progress(message);
        }
    }

    private static Profile FeedProfile(long documents, string kind, long i)
    {
        var profile = ProfileDataSet.Create(documents + 500_000_000L + i);
        profile.Id = $"feed-{kind}/{i}";
        return profile;
    }
}
