namespace Voron.LoadTests.Measurement;

/// <summary>
/// One engine's interleaved rounds of one configuration, as one report row: ok and failed
/// invocations and seconds summed (the rate is the ok count over the rounds' time, settles
/// included), and the latency percentiles of all the rounds' ok invocations together (their
/// histograms added: <see cref="LatencyStats.Pooled"/>), as one run of them all would give.
/// </summary>
internal sealed class RoundTotals
{
    private readonly List<MeasurementStats> _ok = [];
    private LatencyStats? _latency;

    /// <summary>Ok invocations over the rounds.</summary>
    public long Ok { get; private set; }

    /// <summary>Failed invocations over the rounds.</summary>
    public long Failed { get; private set; }

    /// <summary>The rounds' measured seconds (settles included).</summary>
    public double Seconds { get; private set; }

    /// <summary>The failures' status codes and one message of each, over the rounds (for progress lines).</summary>
    public Dictionary<string, string?> FailureCodes { get; } = new(StringComparer.Ordinal);

    public double OkPerSecond => Seconds > 0 ? Ok / Seconds : 0;

    public double P50Ms => Latency.P50Ms;

    public double P99Ms => Latency.P99Ms;

    private LatencyStats Latency => _latency ??= LatencyStats.Pooled(_ok);

    public void Add(ScenarioStats round)
    {
        Ok += round.Ok.Count;
        Failed += round.Fail.Count;
        Seconds += round.Seconds;
        _ok.Add(round.Ok);
        _latency = null;

        foreach (var code in round.StatusCodes.Where(c => c.IsError))
        {
            FailureCodes.TryAdd(code.StatusCode, code.Message);
        }
    }

    /// <summary>"" when nothing failed; otherwise ", N failed (code: message; ...)".</summary>
    public string DescribeFailures() =>
        Failed == 0 ? "" : $", {Failed:N0} failed ({string.Join("; ", FailureCodes.Select(c => $"{c.Key}: {c.Value}"))})";
}
