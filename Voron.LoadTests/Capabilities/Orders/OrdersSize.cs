namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>How much a path holds before the run: customers, products and preloaded orders (order ids 0..Orders-1).</summary>
internal sealed record OrdersSize(long Customers, long Products, long Orders)
{
    public static OrdersSize Full { get; } = new(10_000, 1_000, 100_000);

    public static OrdersSize Quick { get; } = new(1_000, 200, 5_000);
}
