namespace Voron.Documents.AspNetCore;

/// <summary>
/// Minimal-API results that write stored JSON as it is stored — no deserializing, no serializing
/// (as <c>TypedResults</c> does for objects):
/// <code>
/// app.MapGet("/products/{key}", (string key, IAsyncDocumentSession session) => DocumentResults.Document(session, "products/" + key));
/// </code>
/// </summary>
public static class DocumentResults
{
    /// <summary>
    /// 200 with the document's stored JSON, its version as the <c>ETag</c> and its
    /// <c>Last-Modified</c>; 304 when the request's <c>If-None-Match</c> names the current version;
    /// 404 problem details when there is no such document.
    /// </summary>
    public static RawDocumentResult Document(IAsyncDocumentSession session, string id)
    {
        ArgumentNullException.ThrowIfNull(session);
        ArgumentException.ThrowIfNullOrEmpty(id);
        return new RawDocumentResult(session, id);
    }

    /// <summary>
    /// 200 with a JSON array of the documents' stored JSON, written as they are read — for example a
    /// raw query: <c>DocumentResults.Documents(session.QueryRaw("products").Where("category", QueryOperator.Equal, c).Take(50))</c>.
    /// A query that is refused (no index serves it) throws before the response starts. The query's
    /// snapshot stays open while a slow client reads, so bound the results with <c>Take</c>.
    /// </summary>
    public static RawDocumentsResult Documents(IAsyncEnumerable<RawDocument> documents)
    {
        ArgumentNullException.ThrowIfNull(documents);
        return new RawDocumentsResult(documents);
    }
}
