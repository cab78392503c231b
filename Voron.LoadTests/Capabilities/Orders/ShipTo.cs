namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>Where an <see cref="Order"/> goes.</summary>
public sealed class ShipTo
{
    public string Street { get; set; } = "";

    public string City { get; set; } = "";

    public string Zip { get; set; } = "";
}
