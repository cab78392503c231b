using System.Buffers;
using System.Globalization;
using DocumentsApi;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Voron.Documents.AspNetCore;

namespace Voron.Diagnostics.Experiments.Http;

/// <summary>
/// The routes of samples/DocumentsApi's <see cref="ProductEndpoints"/> that the experiment loads
/// (create, read by id, query), answered from <see cref="SqliteProducts"/> with the same status
/// codes, headers and bodies: the stored JSON as stored, the version as the ETag.
/// </summary>
internal static class SqliteProductEndpoints
{
    public static void MapSqliteProducts(this IEndpointRouteBuilder app, SqliteProducts store)
    {
        var products = app.MapGroup("/products");
        products.MapPost("/", async (Product product, HttpResponse response, CancellationToken ct) =>
        {
            var (stored, version) = await store.InsertAsync(product, ct).ConfigureAwait(false);
            response.Headers.ETag = DocumentETag.Format(version);
            return TypedResults.Created($"/products/{stored.Id!["products/".Length..]}", stored);
        });

        products.MapGet("/{key}", async (string key, HttpResponse response, CancellationToken ct) =>
        {
            if (!long.TryParse(key, NumberStyles.None, CultureInfo.InvariantCulture, out var id) || store.Get(id) is not { } found)
            {
                response.StatusCode = StatusCodes.Status404NotFound;
                return;
            }

            response.Headers.ETag = DocumentETag.Format(found.Version);
            response.ContentType = "application/json; charset=utf-8";
            response.ContentLength = found.Json.Length;
            await response.Body.WriteAsync(found.Json, ct).ConfigureAwait(false);
        });

        products.MapGet("/", async (string category, double? maxPrice, int? take, HttpResponse response, CancellationToken ct) =>
        {
            var results = store.Query(category, maxPrice, Math.Clamp(take ?? 20, 1, 100));
            response.ContentType = "application/json; charset=utf-8";
            var writer = response.BodyWriter; // as RawDocumentsResult writes the Voron query's array
            writer.Write("["u8);
            for (var i = 0; i < results.Count; i++)
            {
                if (i > 0)
                {
                    writer.Write(","u8);
                }

                writer.Write(results[i]);
            }

            writer.Write("]"u8);
            await writer.FlushAsync(ct).ConfigureAwait(false);
        });
    }
}
