namespace Voron.LoadTests.Experiments;

/// <summary>One engine's figures for one workload of the <c>kv</c> experiment.</summary>
internal sealed record KvResult(string Engine, string Workload, long Ops, double Seconds)
{
    public double OpsPerSec => Ops / Seconds;
}
