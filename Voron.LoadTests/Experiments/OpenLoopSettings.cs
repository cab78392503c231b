namespace Voron.LoadTests.Experiments;

/// <summary>
/// How the merge experiment's open loop runs: the sweep of rising arrival rates that finds each
/// mode's saturation rate, and the interleaved target points.
/// </summary>
/// <param name="StepDuration">How long each sweep point offers its rate.</param>
/// <param name="StartRate">The sweep's first rate (writes per second).</param>
/// <param name="Growth">Each sweep point's rate over the previous one's.</param>
/// <param name="MaxRate">The sweep stops here even if every point was ok.</param>
/// <param name="BisectSteps">Points between the last ok rate and the first bad one, each halving the gap (geometrically).</param>
/// <param name="TargetRounds">Interleaved rounds of each mode at each target point.</param>
/// <param name="TargetDuration">How long each round of a target point lasts.</param>
/// <param name="WarmUp">Unreported load at the first rate before a store's first measured point.</param>
internal sealed record OpenLoopSettings(
    TimeSpan StepDuration,
    double StartRate,
    double Growth,
    double MaxRate,
    int BisectSteps,
    int TargetRounds,
    TimeSpan TargetDuration,
    TimeSpan WarmUp)
{
    /// <summary>A point is ok when its p99 latency is at most this (<see cref="Load.SaturationSweep"/>'s rule) ...</summary>
    public const double P99LimitMs = Load.SaturationSweep.P99LimitMs;

    /// <summary>... and it completed at least this share of the offered rate, with no failures.</summary>
    public const double KeepUpShare = Load.SaturationSweep.KeepUpShare;

    /// <summary>The target points, as shares of merged's saturation rate.</summary>
    public static readonly double[] TargetShares = [0.5, 0.8];

    public static OpenLoopSettings Full { get; } = new(TimeSpan.FromSeconds(2), 250, 1.6, 400_000, 3, 3, TimeSpan.FromSeconds(3), TimeSpan.FromSeconds(1));

    public static OpenLoopSettings Quick { get; } = new(TimeSpan.FromMilliseconds(300), 100, 3, 100_000, 1, 1, TimeSpan.FromMilliseconds(300), TimeSpan.FromMilliseconds(100));
}
