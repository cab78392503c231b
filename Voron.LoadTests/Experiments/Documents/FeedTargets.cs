namespace Voron.LoadTests.Experiments.Documents;

/// <summary>
/// The targets of the change feed's rows (Voron only): the history read at least 200,000 changes
/// per second (without the JSON: the feed's own cost), the live latency p99 at most 5 ms at 1,000
/// saves per second, and the feed's bookkeeping costing at most 10% of the insert rate at 64
/// callers (the feed-on store's rate at least 0.9 of the feed-off store's).
/// </summary>
internal static class FeedTargets
{
    public const double ReadChangesPerSecond = 200_000;
    public const double LatencyP99Ms = 5;
    public const double CostVsFeedOff = 0.9;

    /// <summary>The feed-read row's target in words, or null (the row with the JSON has none).</summary>
    public static string? DescribeRead(bool includeJson) =>
        includeJson ? null : string.Create(CultureInfo.InvariantCulture, $"opsPerSec >= {ReadChangesPerSecond:N0}");

    public static string? MetRead(bool includeJson, double changesPerSecond) =>
        includeJson ? null : Verdict(changesPerSecond >= ReadChangesPerSecond);

    public static string DescribeLatency() => string.Create(CultureInfo.InvariantCulture, $"p99Ms <= {LatencyP99Ms}");

    public static string MetLatency(double p99Ms) => Verdict(p99Ms <= LatencyP99Ms);

    public static string DescribeCost() => string.Create(CultureInfo.InvariantCulture, $"vsFeedOff >= {CostVsFeedOff}");

    public static string MetCost(double? vsFeedOff) => vsFeedOff == null ? "n/a" : Verdict(vsFeedOff.Value >= CostVsFeedOff);

    private static string Verdict(bool met) => met ? "yes" : "no";
}
