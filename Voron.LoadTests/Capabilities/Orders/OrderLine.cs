namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>One line of an <see cref="Order"/>: a product id, how many, and the unit price paid.</summary>
public sealed class OrderLine
{
    public string Product { get; set; } = "";

    public int Quantity { get; set; }

    public double Price { get; set; }
}
