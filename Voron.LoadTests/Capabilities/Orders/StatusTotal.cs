namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>One row of the report: a status, how many orders have it, and the sum of their totals.</summary>
internal sealed record StatusTotal(string Status, long Orders, double Total)
{
    /// <summary>The report over <paramref name="orders"/> computed in C#, one row per status in ordinal order (as SQL's <c>ORDER BY status</c>).</summary>
    public static IReadOnlyList<StatusTotal> Of(IEnumerable<Order> orders) =>
        [.. orders.GroupBy(o => o.Status, StringComparer.Ordinal)
            .OrderBy(g => g.Key, StringComparer.Ordinal)
            .Select(g => new StatusTotal(g.Key, g.LongCount(), g.Sum(o => o.Total)))];
}
