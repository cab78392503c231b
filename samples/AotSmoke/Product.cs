namespace AotSmoke;

public sealed class Product
{
    public string? Id { get; set; }

    public string Name { get; set; } = "";

    public double Price { get; set; }

    public List<string> Tags { get; set; } = [];
}
