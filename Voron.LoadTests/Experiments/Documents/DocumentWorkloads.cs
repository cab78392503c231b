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

    /// <summary>Every workload, in the order the experiment runs them.</summary>
    public static readonly string[] All = [Bulk, Load, QueryEqual, QueryRange, Update, Insert];
}
