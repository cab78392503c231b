namespace Voron.LoadTests.Load;

/// <summary>Latency of a set of invocations or steps, in milliseconds (HdrHistogram, 3 significant digits: each figure within 0.1%).</summary>
internal sealed record LatencyStats(double MinMs, double MeanMs, double MaxMs, double StdDevMs, double P50Ms, double P75Ms, double P95Ms, double P99Ms)
{
    public static LatencyStats Empty { get; } = new(double.NaN, double.NaN, double.NaN, double.NaN, double.NaN, double.NaN, double.NaN, double.NaN) { P999Ms = double.NaN };

    /// <summary>The 99.9th percentile (not in NBomber's set; the merge experiment reports it).</summary>
    public double P999Ms { get; init; }

    /// <summary>
    /// The latency of several runs' measurements together, as if one run had made them all (the
    /// histograms added, not the percentiles averaged): for interleaved rounds of one engine.
    /// </summary>
    public static LatencyStats Pooled(IEnumerable<MeasurementStats> runs)
    {
        var pooled = Meter.NewHistogram();
        foreach (var run in runs)
        {
            pooled.Add(run.Histogram ?? throw new ArgumentException("Only measurements made by the load runner keep their histograms.", nameof(runs)));
        }

        return Meter.Latency(pooled);
    }
}

/// <summary>The ok or the failed part of a scenario's or step's results (NBomber's MeasurementStats).</summary>
/// <param name="Count">Invocations (or steps) of this kind.</param>
/// <param name="Rps">Count over the scenario's measured seconds (settle included).</param>
/// <param name="Latency">Their latency.</param>
/// <param name="Bytes">What their responses said they moved (<see cref="Response.SizeBytes"/>).</param>
internal sealed record MeasurementStats(long Count, double Rps, LatencyStats Latency, long Bytes)
{
    /// <summary>The latencies themselves (units of 100 ns), for pooling runs (<see cref="LatencyStats.Pooled"/>); null for figures made up elsewhere.</summary>
    internal HdrHistogram.HistogramBase? Histogram { get; init; }
}

/// <summary>How many responses had one status code (and whether that code was a failure), with one message seen with it.</summary>
internal sealed record StatusCodeStats(string StatusCode, bool IsError, long Count, string? Message);

/// <summary>One step's results (<see cref="Step.Run"/>).</summary>
internal sealed record StepStats(string StepName, MeasurementStats Ok, MeasurementStats Fail, IReadOnlyList<StatusCodeStats> StatusCodes)
{
    public long AllRequestCount => Ok.Count + Fail.Count;
}

/// <summary>
/// One interval of a run (<see cref="LoadRunOptions.ReportingInterval"/>): invocations that ended in
/// it, their rate and latency, and the load asked for (copies of a closed phase, or the scheduled
/// rate of an open one).
/// </summary>
/// <param name="EndSeconds">The interval's end, seconds since the measured phases began.</param>
/// <param name="Ok">Invocations that ended ok in the interval.</param>
/// <param name="Fail">Invocations that failed in the interval.</param>
/// <param name="Rps">Ok invocations per second in the interval.</param>
/// <param name="P50Ms">Median latency of the interval's ok invocations (NaN when none).</param>
/// <param name="P99Ms">Their 99th percentile.</param>
/// <param name="Copies">Copies running (closed phase) or invocations in flight (open) at the interval's end.</param>
/// <param name="OfferedRps">Invocations scheduled per second in the interval (open phases; 0 in closed ones).</param>
internal sealed record TimelinePoint(double EndSeconds, long Ok, long Fail, double Rps, double P50Ms, double P99Ms, int Copies, double OfferedRps);

/// <summary>
/// One scenario run's results (NBomber's ScenarioStats): the whole invocation (all its steps) as
/// the scenario's own measurement, each step, the status codes, and the timeline.
/// </summary>
/// <param name="ScenarioName">The scenario.</param>
/// <param name="Simulations">The measured phases it ran.</param>
/// <param name="Seconds">The measured span: from the first phase's start to the last invocation's end, then the settle (RPS figures are over this span).</param>
/// <param name="SettleSeconds">The part of <paramref name="Seconds"/> the settle took.</param>
/// <param name="Scheduled">Invocations the open phases scheduled (0 for closed-only runs); every scheduled one is started and counted.</param>
/// <param name="Ok">Invocations that returned ok.</param>
/// <param name="Fail">Invocations that failed (returned a failure or threw).</param>
/// <param name="Steps">Each step, in order of first use.</param>
/// <param name="StatusCodes">The invocations' status codes.</param>
/// <param name="Timeline">The run in fixed intervals.</param>
internal sealed record ScenarioStats(
    string ScenarioName,
    IReadOnlyList<LoadSimulation> Simulations,
    double Seconds,
    double SettleSeconds,
    long Scheduled,
    MeasurementStats Ok,
    MeasurementStats Fail,
    IReadOnlyList<StepStats> Steps,
    IReadOnlyList<StatusCodeStats> StatusCodes,
    IReadOnlyList<TimelinePoint> Timeline)
{
    public long AllRequestCount => Ok.Count + Fail.Count;

    public long AllOkCount => Ok.Count;

    public long AllFailCount => Fail.Count;

    public long AllBytes => Ok.Bytes + Fail.Bytes;

    /// <summary>Ok invocations per second of load, the settle left out: what an open phase's offered rate is compared with.</summary>
    public double LoadRps => Seconds - SettleSeconds > 0 ? Ok.Count / (Seconds - SettleSeconds) : 0;

    /// <summary>How many responses (ok or not) had <paramref name="statusCode"/>, at the scenario level.</summary>
    public long CountOf(string statusCode) => StatusCodes.Where(s => s.StatusCode == statusCode).Sum(s => s.Count);

    /// <summary>The step named <paramref name="name"/>; throws naming the steps there are when there is none.</summary>
    public StepStats Step(string name) =>
        Steps.FirstOrDefault(s => s.StepName == name)
        ?? throw new KeyNotFoundException($"Scenario '{ScenarioName}' has no step '{name}'; it has {string.Join(", ", Steps.Select(s => s.StepName))}.");

    /// <summary>The failures with status codes other than <paramref name="allowed"/> (e.g. "timeout"): the wrong answers.</summary>
    public long FailuresExcept(params string[] allowed) =>
        StatusCodes.Where(s => s.IsError && !allowed.Contains(s.StatusCode, StringComparer.Ordinal)).Sum(s => s.Count);
}
