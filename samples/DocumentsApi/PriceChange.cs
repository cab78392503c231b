namespace DocumentsApi;

/// <summary>The body of <c>PATCH /products/{key}/price</c>.</summary>
public sealed record PriceChange(double Price);
