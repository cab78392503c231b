using Voron.Documents;

namespace DocumentsApi;

/// <summary>A document of the <c>products</c> collection; its id is <c>products/&lt;n&gt;</c>.</summary>
[DocumentCollection("products")]
public sealed class Product
{
    public string? Id { get; set; }

    public string Name { get; set; } = "";

    public string Category { get; set; } = "";

    public double Price { get; set; }
}
