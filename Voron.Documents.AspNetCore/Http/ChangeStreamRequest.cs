using System.Globalization;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Primitives;

namespace Voron.Documents.AspNetCore.Http;

/// <summary>
/// What a request to the change stream asks for: the position to start after (SE1) and the
/// collection, or the problem that refuses it (SE2).
/// </summary>
internal readonly record struct ChangeStreamRequest(long Since, string? Collection, ProblemDetails? Problem)
{
    public const string LastEventIdHeader = "Last-Event-ID";

    public static ChangeStreamRequest Read(HttpRequest request)
    {
        string? collection = null;
        if (request.Query.TryGetValue("collection", out var collections))
        {
            if (collections.Count != 1 || string.IsNullOrEmpty(collections[0]))
            {
                return Refuse("The query parameter 'collection' must be given once, with a collection name; leave it out for every collection's changes.");
            }

            collection = collections[0];
        }

        // SE1: the header first. EventSource reconnects to the URL it was given (its ?since= too)
        // and sends the id of the last event it received, which is the newer position.
        if (request.Headers.TryGetValue(LastEventIdHeader, out var header) && !IsEmpty(header))
        {
            return header.Count == 1 && TryParsePosition(header[0], out var after)
                ? new ChangeStreamRequest(after, collection, null)
                : Refuse($"The header {LastEventIdHeader} must be one version, a whole number from 0 to {long.MaxValue}: the id of the last event received; it was '{header}'.");
        }

        if (request.Query.TryGetValue("since", out var since))
        {
            return since.Count == 1 && TryParsePosition(since[0], out var after)
                ? new ChangeStreamRequest(after, collection, null)
                : Refuse($"The query parameter 'since' must be given once, a version: a whole number from 0 to {long.MaxValue} (the changes after it are sent; 0: all retained); it was '{since}'. " +
                         "To start at the present, pass the version of the data the client already has (a document's ETag) so that nothing between reading it and subscribing is missed.");
        }

        return new ChangeStreamRequest(0, collection, null);
    }

    private static bool IsEmpty(StringValues values) => values.Count == 1 && string.IsNullOrEmpty(values[0]);

    private static bool TryParsePosition(string? text, out long position) =>
        long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out position);

    private static ChangeStreamRequest Refuse(string detail) =>
        new(0, null, new ProblemDetails { Status = StatusCodes.Status400BadRequest, Title = "Bad request", Detail = detail });
}
