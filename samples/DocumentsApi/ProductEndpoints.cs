using Voron.Documents;
using Voron.Documents.AspNetCore;

namespace DocumentsApi;

/// <summary>CRUD and a query for the <c>products</c> collection.</summary>
public static class ProductEndpoints
{
    /// <summary>Serves <c>GET /products?category=…&amp;maxPrice=…</c>: equality on the category, then a range and the order on the price.</summary>
    public static IndexDefinition ByCategoryAndPrice { get; } =
        IndexDefinition.For(AppJson.Default.Product, "products_by_category_price", p => p.Category, p => p.Price);

    public static RouteGroupBuilder MapProducts(this IEndpointRouteBuilder app)
    {
        var products = app.MapGroup("/products");

        // Create: the store gives the id (products/1, products/2, ...); the version is the ETag.
        products.MapPost("/", async (Product product, IAsyncDocumentSession session, HttpResponse response, CancellationToken ct) =>
        {
            product.Id = null;
            session.Store(product, AppJson.Default.Product);
            await session.SaveChangesAsync(ct);
            response.Headers.ETag = DocumentETag.Format(session.GetMetadata(product)!.Version);
            return TypedResults.Created($"/products/{Key(product.Id!)}", product);
        });

        // Read: the stored JSON as it is (not deserialized), ETag and Last-Modified; 304 for If-None-Match.
        products.MapGet("/{key}", (string key, IAsyncDocumentSession session) => DocumentResults.Document(session, Id(key)));

        // Replace (or create): with If-Match: "<version>" only if nobody wrote since; else 412.
        products.MapPut("/{key}", async (string key, Product product, IfMatchVersion ifMatch, IAsyncDocumentSession session, HttpResponse response, CancellationToken ct) =>
        {
            product.Id = Id(key);
            session.Store(product, AppJson.Default.Product, product.Id, ifMatch.ExpectedVersion);
            await session.SaveChangesAsync(ct);
            response.Headers.ETag = DocumentETag.Format(session.GetMetadata(product)!.Version);
            return TypedResults.Ok(product);
        });

        // Change one field: load, change, save. A write by someone else in between is a 409.
        products.MapPatch("/{key}/price", async Task<IResult> (string key, PriceChange change, IAsyncDocumentSession session, HttpResponse response, CancellationToken ct) =>
        {
            var product = await session.LoadAsync(Id(key), AppJson.Default.Product, ct);
            if (product == null)
            {
                return TypedResults.NotFound();
            }

            product.Price = change.Price;
            await session.SaveChangesAsync(ct);
            response.Headers.ETag = DocumentETag.Format(session.GetMetadata(product)!.Version);
            return TypedResults.Ok(product);
        });

        // Delete: with If-Match only that version.
        products.MapDelete("/{key}", async (string key, IfMatchVersion ifMatch, IAsyncDocumentSession session, CancellationToken ct) =>
        {
            if (ifMatch.ExpectedVersion is { } version)
            {
                session.Delete(Id(key), version);
            }
            else
            {
                session.Delete(Id(key));
            }

            await session.SaveChangesAsync(ct);
            return TypedResults.NoContent();
        });

        // Query through the index, cheapest first, the stored JSON streamed as an array.
        products.MapGet("/", (string category, double? maxPrice, int? take, IAsyncDocumentSession session) =>
        {
            var query = session.QueryRaw("products").Where("category", QueryOperator.Equal, category);
            if (maxPrice is { } max)
            {
                query = query.Where("price", QueryOperator.LessThanOrEqual, max);
            }

            return DocumentResults.Documents(query.OrderBy("price").Take(Math.Clamp(take ?? 20, 1, 100)));
        });

        return products;
    }

    private static string Id(string key) => "products/" + key;

    private static string Key(string id) => id["products/".Length..];
}
