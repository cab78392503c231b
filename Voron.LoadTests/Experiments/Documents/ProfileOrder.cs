namespace Voron.LoadTests.Experiments.Documents;

public sealed class ProfileOrder
{
    public string Sku { get; set; } = "";

    public int Quantity { get; set; }

    public double Price { get; set; }

    public string Status { get; set; } = "";

    public long PlacedUnix { get; set; }
}
