namespace Voron.LoadTests.Load;

/// <summary>
/// Finds a system's saturation rate under open load: the highest arrival rate at which it still
/// keeps up with a bounded p99 (<see cref="IsOk"/>). Rates rise geometrically until two points in a
/// row are not ok (one bad point alone may be a hiccup of the machine: it is reported and the sweep
/// goes on); the saturation rate is the last ok rate before that pair, refined by bisection
/// (geometric) towards the first of the pair.
/// </summary>
internal static class SaturationSweep
{
    /// <summary>A point is ok when its p99 latency is at most this many milliseconds ...</summary>
    public const double P99LimitMs = 10;

    /// <summary>... and it completed at least this share of the offered rate, with no failures.</summary>
    public const double KeepUpShare = 0.9;

    /// <summary>
    /// Runs <paramref name="point"/>(rate) for rising rates from <paramref name="startRate"/> (times
    /// <paramref name="growth"/> each, up to <paramref name="maxRate"/>), then <paramref name="bisectSteps"/>
    /// bisection points; <paramref name="point"/> returns whether the rate was ok. Returns the highest
    /// ok rate (0 when none was) and whether the sweep hit <paramref name="maxRate"/> without finding a bad rate.
    /// </summary>
    public static async Task<(double Rate, bool ReachedMax)> FindAsync(double startRate, double growth, double maxRate, int bisectSteps, Func<double, Task<bool>> point)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(startRate);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(growth, 1);
        double ok = 0;
        double? bad = null;
        double? firstBadInARow = null;
        double lastOkBeforeBad = 0;
        for (var rate = startRate; rate <= maxRate; rate *= growth)
        {
            if (await point(rate).ConfigureAwait(false))
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

        if (firstBadInARow != null)
        {
            bad ??= firstBadInARow; // the last point was bad: the sweep ended on it
            ok = lastOkBeforeBad;
        }

        for (var step = 0; bad != null && ok > 0 && step < bisectSteps; step++)
        {
            var middle = Math.Sqrt(ok * bad.Value);
            if (await point(middle).ConfigureAwait(false))
            {
                ok = middle;
            }
            else
            {
                bad = middle;
            }
        }

        return (ok, bad == null);
    }

    /// <summary>
    /// Whether an open run at <paramref name="offeredPerSecond"/> kept up: no failures, p99 within
    /// the limit, and at least <see cref="KeepUpShare"/> of the offered rate completed over the load's
    /// span (<see cref="ScenarioStats.LoadRps"/>: the settle after it is not arrival time).
    /// </summary>
    public static bool IsOk(ScenarioStats stats, double offeredPerSecond) =>
        stats.AllFailCount == 0 && stats.Ok.Latency.P99Ms <= P99LimitMs && stats.LoadRps >= KeepUpShare * offeredPerSecond;
}
