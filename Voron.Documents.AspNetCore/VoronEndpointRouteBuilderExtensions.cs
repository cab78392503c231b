using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Voron.Documents.AspNetCore.Http;

namespace Voron.Documents.AspNetCore;

/// <summary>Endpoints over a document store, mapped on the app's routes.</summary>
public static class VoronEndpointRouteBuilderExtensions
{
    /// <summary>
    /// Maps <c>GET <paramref name="pattern"/></c> to the store's change feed as server-sent events
    /// (<c>text/event-stream</c>): one event per committed change, in version order —
    /// <c>id: &lt;version&gt;</c>, <c>event: stored</c> or <c>deleted</c>, and <c>data:</c> one line of JSON
    /// with <c>id</c>, <c>collection</c>, <c>version</c> and <c>lastModified</c>. It starts after the
    /// <c>Last-Event-ID</c> header (a browser's <c>EventSource</c> sends it when it reconnects), else
    /// after <c>?since=&lt;version&gt;</c>, else from the beginning of the retained feed;
    /// <c>?collection=</c> keeps one collection's changes. A value it cannot use is a 400 problem; a
    /// position older than the store retains is a 410 problem with <c>oldest</c>, the smallest one
    /// accepted. The stream ends when the client disconnects or the app stops.
    /// </summary>
    /// <param name="endpoints">The app or a route group.</param>
    /// <param name="pattern">The route; default <c>/changes</c>.</param>
    /// <param name="configure">Changes <see cref="DocumentChangesOptions"/> (keep-alive interval, keyed store).</param>
    public static IEndpointConventionBuilder MapDocumentChanges(this IEndpointRouteBuilder endpoints, string pattern = "/changes", Action<DocumentChangesOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        ArgumentException.ThrowIfNullOrEmpty(pattern);
        var options = new DocumentChangesOptions();
        configure?.Invoke(options);
        options.Validate();
        var endpoint = new ChangeStreamEndpoint(options);
        return endpoints.MapGet(pattern, (RequestDelegate)endpoint.HandleAsync).WithDisplayName("Voron document changes (server-sent events)");
    }
}
