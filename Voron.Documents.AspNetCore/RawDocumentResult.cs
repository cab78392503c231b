using System.Globalization;
using System.Reflection;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Net.Http.Headers;

namespace Voron.Documents.AspNetCore;

/// <summary>One stored document's JSON as the response (<see cref="DocumentResults.Document"/>).</summary>
public sealed class RawDocumentResult : IResult, IEndpointMetadataProvider
{
    private readonly IAsyncDocumentSession _session;

    internal RawDocumentResult(IAsyncDocumentSession session, string id)
    {
        _session = session;
        Id = id;
    }

    /// <summary>The document's id.</summary>
    public string Id { get; }

    /// <inheritdoc/>
    public async Task ExecuteAsync(HttpContext httpContext)
    {
        ArgumentNullException.ThrowIfNull(httpContext);
        var cancellationToken = httpContext.RequestAborted;
        using var document = await _session.LoadRawAsync(Id, cancellationToken).ConfigureAwait(false);
        if (document == null)
        {
            await NotFound(Id).ExecuteAsync(httpContext).ConfigureAwait(false);
            return;
        }

        var response = httpContext.Response;
        var version = document.Metadata.Version;
        response.Headers.ETag = DocumentETag.Format(version);
        response.Headers.LastModified = document.Metadata.LastModified.ToString("R", CultureInfo.InvariantCulture);
        if (NamesVersion(httpContext.Request.Headers[HeaderNames.IfNoneMatch], version))
        {
            response.StatusCode = StatusCodes.Status304NotModified;
            return;
        }

        response.StatusCode = StatusCodes.Status200OK;
        response.ContentType = "application/json; charset=utf-8";
        response.ContentLength = document.Json.Length;
        if (!HttpMethods.IsHead(httpContext.Request.Method))
        {
            await response.Body.WriteAsync(document.Json, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>404 problem details naming the id.</summary>
    internal static ProblemHttpResult NotFound(string id) =>
        TypedResults.Problem($"There is no document '{id}'.", statusCode: StatusCodes.Status404NotFound, title: "Document not found");

    private static bool NamesVersion(Microsoft.Extensions.Primitives.StringValues ifNoneMatch, long version)
    {
        foreach (var value in ifNoneMatch)
        {
            foreach (var tag in (value ?? "").Split(','))
            {
                var trimmed = tag.Trim();
                if (trimmed == "*" || (DocumentETag.TryParse(trimmed.StartsWith("W/", StringComparison.Ordinal) ? trimmed[2..] : trimmed, out var named) && named == version))
                {
                    return true; // If-None-Match compares weakly (RFC 9110 13.1.2)
                }
            }
        }

        return false;
    }

    /// <summary>For OpenAPI: 200 JSON, 304, 404 problem details.</summary>
    public static void PopulateMetadata(MethodInfo method, EndpointBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.Metadata.Add(new ProducesResponseTypeMetadata(StatusCodes.Status200OK, typeof(object), ["application/json"]));
        builder.Metadata.Add(new ProducesResponseTypeMetadata(StatusCodes.Status304NotModified));
        builder.Metadata.Add(new ProducesResponseTypeMetadata(StatusCodes.Status404NotFound, typeof(ProblemDetails), ["application/problem+json"]));
    }
}
