namespace Voron.LoadTests.Measurement;

/// <summary>The median of repeated measurements (the experiments report medians of interleaved rounds).</summary>
internal static class Median
{
    /// <summary>The middle value of <paramref name="values"/>, the mean of the middle two for an even count, NaN for none.</summary>
    public static double Of(IEnumerable<double> values)
    {
        var sorted = values.Order().ToArray();
        return sorted.Length == 0 ? double.NaN
            : sorted.Length % 2 == 1 ? sorted[sorted.Length / 2]
            : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
    }
}
