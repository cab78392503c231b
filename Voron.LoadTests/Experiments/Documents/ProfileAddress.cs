namespace Voron.LoadTests.Experiments.Documents;

public sealed class ProfileAddress
{
    public string Street { get; set; } = "";

    public string City { get; set; } = "";

    public string Zip { get; set; } = "";

    public string Country { get; set; } = "";

    public double Latitude { get; set; }

    public double Longitude { get; set; }
}
