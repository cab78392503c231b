using Voron.Documents.Indexing;

namespace Voron.Documents.Querying;

/// <summary>How a query runs (QueryPlanner decides, QueryCursor executes).</summary>
internal sealed class QueryPlan
{
    public required PlanKind Kind { get; init; }

    /// <summary>The index read by an <see cref="PlanKind.IndexRange"/> plan.</summary>
    public IndexRuntime? Index { get; init; }

    /// <summary>The id of an <see cref="PlanKind.IdLookup"/>.</summary>
    public byte[]? LookupId { get; init; }

    /// <summary>The first key read (inclusive); null: from the start.</summary>
    public byte[]? Lower { get; init; }

    /// <summary>The key where reading stops (exclusive); null: to the end.</summary>
    public byte[]? Upper { get; init; }

    public bool Descending { get; init; }

    /// <summary>Conditions checked on an index entry's values: (component, condition).</summary>
    public IReadOnlyList<(int Component, QueryCondition Condition)> KeyConditions { get; init; } = [];

    /// <summary>Conditions checked on the document id.</summary>
    public IReadOnlyList<QueryCondition> IdConditions { get; init; } = [];

    /// <summary>Conditions checked on the document's JSON (a multikey path matches when any element does).</summary>
    public IReadOnlyList<QueryCondition> DocumentConditions { get; init; } = [];

    /// <summary>Whether a document may appear more than once (a multikey index not fixed by an equality).</summary>
    public bool Dedup { get; init; }

    /// <summary>Sort keys applied in memory (only with AllowScan), or null when the read order is the order.</summary>
    public IReadOnlyList<QueryOrder>? SortInMemory { get; init; }

    /// <summary>Builds <see cref="Description"/>: only Explain reads it, so a query that just runs never formats it.</summary>
    public required Func<string> Describe { get; init; }

    /// <summary>The plan in words (Explain).</summary>
    public string Description => Describe();
}
