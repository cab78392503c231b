using Voron.LoadTests.Load;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// One engine's interleaved rounds of one configuration, as one report row: ok and failed
/// invocations and seconds summed (the rate is the ok count over the rounds' time, settles
/// included), and the latency percentiles as the rounds' figures weighted by their ok counts.
/// <see cref="ScenarioStats"/> keeps each round's percentiles, not its histogram, so the rounds
/// cannot be pooled exactly; with one round (quick runs) the figures are the round's own.
/// </summary>
internal sealed class RoundTotals
{
    private double _p50Weighted;
    private double _p99Weighted;

    /// <summary>Ok invocations over the rounds.</summary>
    public long Ok { get; private set; }

    /// <summary>Failed invocations over the rounds.</summary>
    public long Failed { get; private set; }

    /// <summary>The rounds' measured seconds (settles included).</summary>
    public double Seconds { get; private set; }

    /// <summary>The failures' status codes and one message of each, over the rounds (for progress lines).</summary>
    public Dictionary<string, string?> FailureCodes { get; } = new(StringComparer.Ordinal);

    public double OkPerSecond => Seconds > 0 ? Ok / Seconds : 0;

    public double P50Ms => Ok == 0 ? double.NaN : _p50Weighted / Ok;

    public double P99Ms => Ok == 0 ? double.NaN : _p99Weighted / Ok;

    public void Add(ScenarioStats round)
    {
        Ok += round.Ok.Count;
        Failed += round.Fail.Count;
        Seconds += round.Seconds;
        if (round.Ok.Count > 0)
        {
            _p50Weighted += round.Ok.Latency.P50Ms * round.Ok.Count;
            _p99Weighted += round.Ok.Latency.P99Ms * round.Ok.Count;
        }

        foreach (var code in round.StatusCodes.Where(c => c.IsError))
        {
            FailureCodes.TryAdd(code.StatusCode, code.Message);
        }
    }

    /// <summary>"" when nothing failed; otherwise ", N failed (code: message; ...)".</summary>
    public string DescribeFailures() =>
        Failed == 0 ? "" : $", {Failed:N0} failed ({string.Join("; ", FailureCodes.Select(c => $"{c.Key}: {c.Value}"))})";
}
