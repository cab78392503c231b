using System.Collections.Concurrent;
using HdrHistogram;

namespace Voron.LoadTests.Load;

/// <summary>
/// The results of one scenario or step while it runs: ok and failed latencies in HdrHistogram
/// recorders (wait-free to record from any thread), bytes and status codes. <see cref="Drain"/>
/// takes what was recorded since the last call (an interval, for the timeline) and adds it to the
/// totals; only the run's one reporting loop calls it.
/// </summary>
internal sealed class Meter
{
    /// <summary>Latencies are recorded in units of 100 ns (TimeSpan ticks), from 100 ns to an hour.</summary>
    private const long HighestUnits = TimeSpan.TicksPerHour;

    private readonly Recorder _ok = NewRecorder();
    private readonly Recorder _fail = NewRecorder();
    private readonly LongHistogram _okTotal = NewHistogram();
    private readonly LongHistogram _failTotal = NewHistogram();
    private readonly ConcurrentDictionary<(string Code, bool IsError), StatusCount> _codes = new();
    private HistogramBase? _okInterval;
    private HistogramBase? _failInterval;
    private long _okBytes;
    private long _failBytes;

    public Meter(string name) => Name = name;

    public string Name { get; }

    public void Record(Response response, long stopwatchTicks)
    {
        var units = Math.Clamp(stopwatchTicks * TimeSpan.TicksPerSecond / Stopwatch.Frequency, 1, HighestUnits);
        (response.IsError ? _fail : _ok).RecordValue(units);
        Interlocked.Add(ref response.IsError ? ref _failBytes : ref _okBytes, response.SizeBytes);
        var count = _codes.GetOrAdd((response.StatusCode, response.IsError), _ => new StatusCount());
        if (Interlocked.Increment(ref count.Count) == 1)
        {
            count.Message = response.Message;
        }
    }

    /// <summary>Moves what was recorded since the last call into the totals; returns the interval's ok and failed histograms (valid until the next call).</summary>
    public (HistogramBase Ok, HistogramBase Fail) Drain()
    {
        _okInterval = _ok.GetIntervalHistogram(_okInterval);
        _failInterval = _fail.GetIntervalHistogram(_failInterval);
        _okTotal.Add(_okInterval);
        _failTotal.Add(_failInterval);
        return (_okInterval, _failInterval);
    }

    /// <summary>Forgets everything (after a warm-up).</summary>
    public void Reset()
    {
        Drain();
        _okTotal.Reset();
        _failTotal.Reset();
        Interlocked.Exchange(ref _okBytes, 0);
        Interlocked.Exchange(ref _failBytes, 0);
        _codes.Clear();
    }

    public long OkCount => _okTotal.TotalCount;

    public MeasurementStats OkStats(double seconds) => Stats(_okTotal, Interlocked.Read(ref _okBytes), seconds);

    public MeasurementStats FailStats(double seconds) => Stats(_failTotal, Interlocked.Read(ref _failBytes), seconds);

    public IReadOnlyList<StatusCodeStats> StatusCodes() =>
        [.. _codes.OrderBy(c => c.Key.IsError).ThenByDescending(c => c.Value.Count)
            .Select(c => new StatusCodeStats(c.Key.Code, c.Key.IsError, Interlocked.Read(ref c.Value.Count), c.Value.Message))];

    public StepStats ToStepStats(double seconds) => new(Name, OkStats(seconds), FailStats(seconds), StatusCodes());

    internal static LatencyStats Latency(HistogramBase histogram)
    {
        if (histogram.TotalCount == 0)
        {
            return LatencyStats.Empty;
        }

        var min = histogram.RecordedValues().First().ValueIteratedTo;
        return new LatencyStats(
            Ms(histogram.LowestEquivalentValue(min)),
            Ms(histogram.GetMean()),
            Ms(histogram.GetMaxValue()),
            Ms(histogram.GetStdDeviation()),
            Ms(histogram.GetValueAtPercentile(50)),
            Ms(histogram.GetValueAtPercentile(75)),
            Ms(histogram.GetValueAtPercentile(95)),
            Ms(histogram.GetValueAtPercentile(99)))
        {
            P999Ms = Ms(histogram.GetValueAtPercentile(99.9)),
        };
    }

    private static MeasurementStats Stats(HistogramBase histogram, long bytes, double seconds) =>
        new(histogram.TotalCount, seconds > 0 ? histogram.TotalCount / seconds : 0, Latency(histogram), bytes) { Histogram = histogram.Copy() };

    private static double Ms(double units) => units / TimeSpan.TicksPerMillisecond;

    internal static LongHistogram NewHistogram() => new(1, HighestUnits, 3);

    /// <summary>A recorder for many writers: its histograms must take concurrent increments (a plain LongHistogram loses counts; LoadModelTests caught it).</summary>
    private static Recorder NewRecorder() => new(1, HighestUnits, 3, (id, low, high, digits) => new LongConcurrentHistogram(id, low, high, digits));

    private sealed class StatusCount
    {
        public long Count;
        public string? Message;
    }
}
