namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>A product of the orders workload (<see cref="OrdersData.Product"/>).</summary>
public sealed class Product
{
    public string? Id { get; set; }

    public string Name { get; set; } = "";

    public double Price { get; set; }
}
