using System.Buffers;
using System.Reflection;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Metadata;

namespace Voron.Documents.AspNetCore;

/// <summary>Stored documents' JSON as one JSON array, written as they are read (<see cref="DocumentResults.Documents"/>).</summary>
public sealed class RawDocumentsResult : IResult, IEndpointMetadataProvider
{
    private const int FlushEvery = 16 * 1024;

    private readonly IAsyncEnumerable<RawDocument> _documents;

    internal RawDocumentsResult(IAsyncEnumerable<RawDocument> documents) => _documents = documents;

    /// <inheritdoc/>
    public async Task ExecuteAsync(HttpContext httpContext)
    {
        ArgumentNullException.ThrowIfNull(httpContext);
        var cancellationToken = httpContext.RequestAborted;
        var documents = _documents.GetAsyncEnumerator(cancellationToken);
        await using (documents.ConfigureAwait(false))
        {
            // The first result is read before the response starts, so a refused query is still an
            // exception the app's exception handler can answer.
            var more = await documents.MoveNextAsync().ConfigureAwait(false);
            var response = httpContext.Response;
            response.StatusCode = StatusCodes.Status200OK;
            response.ContentType = "application/json; charset=utf-8";
            var writer = response.BodyWriter;
            writer.Write("["u8);
            var unflushed = 1;
            for (var first = true; more; first = false)
            {
                using (var document = documents.Current)
                {
                    if (!first)
                    {
                        writer.Write(","u8);
                    }

                    writer.Write(document.Json.Span);
                    unflushed += document.Json.Length + 1;
                }

                if (unflushed >= FlushEvery)
                {
                    await writer.FlushAsync(cancellationToken).ConfigureAwait(false);
                    unflushed = 0;
                }

                more = await documents.MoveNextAsync().ConfigureAwait(false);
            }

            writer.Write("]"u8);
            await writer.FlushAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>For OpenAPI: 200 JSON.</summary>
    public static void PopulateMetadata(MethodInfo method, EndpointBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.Metadata.Add(new ProducesResponseTypeMetadata(StatusCodes.Status200OK, typeof(object[]), ["application/json"]));
    }
}
