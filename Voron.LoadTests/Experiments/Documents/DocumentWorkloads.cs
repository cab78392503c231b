namespace Voron.LoadTests.Experiments.Documents;

/// <summary>The workload names of the documents experiment's rows.</summary>
internal static class DocumentWorkloads
{
    public const string Insert = "insert";
    public const string Load = "load";
    public const string QueryEqual = "query-eq";
    public const string QueryRange = "query-range";
    public const string Update = "update";
    public const string Bulk = "bulk";

    /// <summary>Voron only: the change feed's history of the bulk-loaded documents read through Changes(), without and with their JSON.</summary>
    public const string FeedRead = "feed-read";

    /// <summary>Voron only: from a save completing to its change reaching a live consumer, at a paced rate (open loop).</summary>
    public const string FeedLatency = "feed-latency";

    /// <summary>Voron only: inserts at 64 callers on a store with the change feed on and one with it off, rounds interleaved.</summary>
    public const string FeedCost = "feed-cost";

    /// <summary>Every workload, in the order the experiment runs them.</summary>
    public static readonly string[] All = [Bulk, FeedRead, Load, QueryEqual, QueryRange, Update, Insert, FeedLatency, FeedCost];

    /// <summary>The workloads of the change feed, which only Voron.Documents has.</summary>
    public static readonly string[] Feed = [FeedRead, FeedLatency, FeedCost];
}
