namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>A customer of the orders workload (<see cref="OrdersData.Customer"/>); public, as LiteDB's mapper and the JSON source generator see it.</summary>
public sealed class Customer
{
    public string? Id { get; set; }

    public string Name { get; set; } = "";

    public string Email { get; set; } = "";

    public string City { get; set; } = "";
}
