using System.Text.Json.Serialization;

namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>
/// An order of the orders workload, about 0.5-1 KiB of JSON (<see cref="OrdersData.Order"/>). The
/// same object goes through every path: as a document (System.Text.Json with <see cref="OrdersJson"/>,
/// or LiteDB's mapper) or as an <c>orders</c> row with its <c>order_lines</c> rows.
/// </summary>
public sealed class Order
{
    public string? Id { get; set; }

    /// <summary>The customer's id (<c>customers/{n}</c>).</summary>
    public string Customer { get; set; } = "";

    /// <summary>ISO 8601 UTC with a fixed width (<see cref="OrdersData.TimeFormat"/>), so text order is time order.</summary>
    public string CreatedAt { get; set; } = "";

    /// <summary>One of <see cref="OrdersData.Statuses"/>.</summary>
    public string Status { get; set; } = "";

    public List<OrderLine> Lines { get; set; } = [];

    public double Total { get; set; }

    public ShipTo ShipTo { get; set; } = new();

    /// <summary>LiteDB's optimistic-concurrency check (Voron keeps versions in metadata, the relational paths in a column).</summary>
    [JsonIgnore]
    public int Version { get; set; }
}
