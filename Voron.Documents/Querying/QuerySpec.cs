namespace Voron.Documents.Querying;

/// <summary>What a query asks, independent of typed or raw front ends: an immutable value each builder step copies.</summary>
internal sealed record QuerySpec(string Collection, byte[] CollectionBytes)
{
    public IReadOnlyList<QueryCondition> Conditions { get; init; } = [];

    public IReadOnlyList<QueryOrder> Orders { get; init; } = [];

    public int Skip { get; init; }

    public int? Take { get; init; }

    public bool AllowScan { get; init; }

    public QuerySpec With(QueryCondition condition) => this with { Conditions = [.. Conditions, condition] };

    public QuerySpec With(IEnumerable<QueryCondition> conditions) => this with { Conditions = [.. Conditions, .. conditions] };

    public QuerySpec ThenOrder(QueryOrder order) => this with { Orders = [.. Orders, order] };

    /// <summary>LINQ's Skip after what the query already does: skips within the current Take.</summary>
    public QuerySpec WithSkip(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        return this with { Skip = Skip + count, Take = Take is { } take ? Math.Max(0, take - count) : null };
    }

    /// <summary>LINQ's Take after what the query already does.</summary>
    public QuerySpec WithTake(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        return this with { Take = Math.Min(Take ?? int.MaxValue, count) };
    }

    /// <summary>The query as text, for messages: Where(...) OrderBy(...).</summary>
    public string Describe()
    {
        var parts = new List<string>();
        if (Conditions.Count > 0)
        {
            parts.Add("Where(" + string.Join(" && ", Conditions.Select(c => c.Display)) + ")");
        }

        if (Orders.Count > 0)
        {
            parts.Add("OrderBy(" + string.Join(", ", Orders) + ")");
        }

        return parts.Count == 0 ? "(every document)" : string.Join(" ", parts);
    }
}
