namespace Voron.LoadTests.Measurement;

/// <summary>
/// Several runs of one measurement, summarized as a skeptic asks: the median, and the minimum and
/// maximum so the spread is in plain sight. With an even number of runs the median is the mean of
/// the two middle ones.
/// </summary>
internal sealed class RunSummary
{
    private readonly List<double> _values = [];

    public int Runs => _values.Count;

    public void Add(double value) => _values.Add(value);

    public double Median
    {
        get
        {
            if (_values.Count == 0)
            {
                return double.NaN;
            }

            var sorted = _values.Order().ToList();
            var middle = sorted.Count / 2;
            return sorted.Count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        }
    }

    public double Min => _values.Count == 0 ? double.NaN : _values.Min();

    public double Max => _values.Count == 0 ? double.NaN : _values.Max();

    /// <summary>(max - min) / median: how far apart the runs were.</summary>
    public double Spread => (Max - Min) / Median;

    public IReadOnlyList<double> Values => _values;
}
