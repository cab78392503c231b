namespace Voron.LoadTests.Measurement;

/// <summary>Latencies of repeated operations, in milliseconds, with exact percentiles (all samples kept).</summary>
internal sealed class LatencySample
{
    private readonly List<double> _milliseconds = [];
    private bool _sorted;

    public int Count => _milliseconds.Count;

    public void Add(double milliseconds)
    {
        _milliseconds.Add(milliseconds);
        _sorted = false;
    }

    public void AddAll(LatencySample other)
    {
        _milliseconds.AddRange(other._milliseconds);
        _sorted = false;
    }

    public void AddTicks(long stopwatchTicks) => Add(stopwatchTicks * 1000.0 / System.Diagnostics.Stopwatch.Frequency);

    public double Median => Percentile(50);

    public double Mean => _milliseconds.Count == 0 ? double.NaN : _milliseconds.Average();

    /// <summary>The nearest-rank percentile (p in 0..100).</summary>
    public double Percentile(double p)
    {
        if (_milliseconds.Count == 0)
        {
            return double.NaN;
        }

        if (!_sorted)
        {
            _milliseconds.Sort();
            _sorted = true;
        }

        var rank = (int)Math.Ceiling(p / 100.0 * _milliseconds.Count);
        return _milliseconds[Math.Clamp(rank - 1, 0, _milliseconds.Count - 1)];
    }
}
