namespace Voron.LoadTests.Experiments.Http;

/// <summary>What one wrk run measured.</summary>
/// <param name="Requests">Responses received.</param>
/// <param name="Seconds">How long wrk ran.</param>
/// <param name="SocketErrors">Connect, read, write errors and timeouts.</param>
/// <param name="BadStatus">Responses that were not 2xx or 3xx.</param>
/// <param name="P50Ms">Median latency (wrk's own histogram).</param>
/// <param name="P99Ms">99th percentile latency.</param>
internal sealed record WrkResult(long Requests, double Seconds, long SocketErrors, long BadStatus, double P50Ms, double P99Ms)
{
    public double RequestsPerSecond => Seconds <= 0 ? 0 : Requests / Seconds;
}
