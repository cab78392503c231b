using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Voron.Documents.AspNetCore.Http;

// The change stream (MapDocumentChanges): DocumentStore.Changes as server-sent events.
//
//   SE1. The stream starts after the Last-Event-ID header when the request has one (not empty),
//       else after ?since=, else after 0 (every retained change). EventSource reconnects to the
//       URL it was given, ?since= included, with the id of the last event it received: the header
//       is the newer position, so it wins. There is no "since=now": a client that wants only new
//       changes passes the version of the data it already has (a document's ETag), so that no
//       change between its read and its subscription is lost.
//   SE2. Everything the endpoint can refuse is refused before the response starts, as problem
//       details: a Last-Event-ID or since that is not one whole number from 0 to 2^63-1, or a
//       collection that is empty, repeated or not a collection name, 400; a position older than the
//       store retains, or above its last version (a restored backup: ChangeFeedPositionException from DocumentStore.Changes) 410 Gone with "requested" and "oldest" (the client
//       must read the data again and resume from what it read: reconnecting cannot help, and
//       EventSource does not retry a 4xx); a store whose change feed is off 404. A position pruned
//       while the stream runs (between the check and the read, or under a reader slower than the
//       retention) ends the stream with an `event: error` whose data has "requested" and "oldest".
//   SE3. Events are written in the order Changes yields them, each whole (id, event, data, blank
//       line). The response is flushed when the enumerator has nothing ready (its MoveNextAsync
//       does not complete at once) or 32 KiB are waiting: a burst of changes is one write, and an
//       idle stream holds nothing back. A slow client slows the flush and so the reading: the
//       feed reads at the client's pace (backpressure), no queue grows.
//   SE4. An event's id is the change's version; a client resuming after it gets the next change
//       and never this one again (Changes' own no gap, no duplicate from a position).
//   SE5. The stream ends, without an error, when the client disconnects (RequestAborted), the app
//       stops (ApplicationStopping: the server would otherwise wait for it before closing the
//       store) or the store is disposed; the enumerator is disposed after its pending move ended,
//       so nothing of the request outlives it.
//   SE6. The data line is one line: Utf8JsonWriter escapes every control character, so an id or a
//       collection can neither break an event nor forge one.

/// <summary>The request delegate of <see cref="VoronEndpointRouteBuilderExtensions.MapDocumentChanges"/>.</summary>
internal sealed class ChangeStreamEndpoint(DocumentChangesOptions options)
{
    /// <summary>Bytes written before a flush even when more changes are ready (SE3).</summary>
    internal const int FlushBytes = 32 * 1024;

    public async Task HandleAsync(HttpContext context)
    {
        var request = ChangeStreamRequest.Read(context.Request);
        if (request.Problem is { } refused)
        {
            await AnswerAsync(context, refused).ConfigureAwait(false);
            return;
        }

        var store = options.StoreKey == null
            ? context.RequestServices.GetRequiredService<DocumentStore>()
            : context.RequestServices.GetRequiredKeyedService<DocumentStore>(options.StoreKey);
        var stopping = context.RequestServices.GetService<IHostApplicationLifetime>()?.ApplicationStopping ?? CancellationToken.None;
        using var ended = CancellationTokenSource.CreateLinkedTokenSource(context.RequestAborted, stopping);

        // SE2: Changes checks the position, the collection and the feed when called, before the
        // response starts, so each refusal is an answer of its own.
        IAsyncEnumerable<DocumentChange> changes;
        try
        {
            changes = store.Changes(request.Since, request.Collection, includeJson: false, ended.Token);
        }
        catch (ChangeFeedPositionException old)
        {
            await AnswerAsync(context, Gone(old)).ConfigureAwait(false);
            return;
        }
        catch (ArgumentException bad) when (bad.ParamName == "collection") // a '/', a control character, too long (DocumentLimitException)
        {
            await AnswerAsync(context, BadRequest($"The query parameter 'collection' is not a collection name: {bad.Message}")).ConfigureAwait(false);
            return;
        }
        catch (InvalidOperationException off) when (off is not ObjectDisposedException)
        {
            await AnswerAsync(context, new ProblemDetails { Status = StatusCodes.Status404NotFound, Title = "Change feed off", Detail = off.Message }).ConfigureAwait(false);
            return;
        }

        await StreamAsync(context, changes, ended.Token).ConfigureAwait(false);
    }

    private async Task StreamAsync(HttpContext context, IAsyncEnumerable<DocumentChange> feed, CancellationToken cancellationToken)
    {
        var response = context.Response;
        response.StatusCode = StatusCodes.Status200OK;
        response.ContentType = "text/event-stream";
        response.Headers.CacheControl = "no-cache";
        response.Headers["X-Accel-Buffering"] = "no"; // nginx: pass events on as they come
        context.Features.Get<IHttpResponseBodyFeature>()?.DisableBuffering();

        var pipe = response.BodyWriter;
        using var events = new ChangeEventWriter(pipe);
        var changes = feed.GetAsyncEnumerator(cancellationToken);
        Task<bool>? pending = null;
        try
        {
            await response.StartAsync(cancellationToken).ConfigureAwait(false);
            await pipe.FlushAsync(cancellationToken).ConfigureAwait(false); // the client sees the stream open before the first change
            var buffered = 0;
            while (true)
            {
                var next = changes.MoveNextAsync();
                bool more;
                if (next.IsCompleted)
                {
                    more = next.Result;
                }
                else
                {
                    if (buffered > 0) // SE3: nothing more is ready, send what is written
                    {
                        await pipe.FlushAsync(cancellationToken).ConfigureAwait(false);
                        buffered = 0;
                    }

                    pending = next.AsTask();
                    more = await WaitAsync(pending, events, pipe, cancellationToken).ConfigureAwait(false);
                    pending = null;
                }

                if (!more)
                {
                    break;
                }

                buffered += events.Write(changes.Current);
                if (buffered >= FlushBytes)
                {
                    await pipe.FlushAsync(cancellationToken).ConfigureAwait(false);
                    buffered = 0;
                }
            }

            await pipe.FlushAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception ended) when (IsEnd(ended, cancellationToken))
        {
            // SE5: the client left, the app stops, or the store closed.
        }
        catch (ChangeFeedPositionException pruned)
        {
            // SE2: pruned after the check or under a slow reader.
            events.WritePositionError(pruned.Requested, pruned.Oldest, pruned.Message);
            await FlushQuietlyAsync(pipe).ConfigureAwait(false);
        }
        finally
        {
            if (pending != null)
            {
                await AwaitQuietlyAsync(pending).ConfigureAwait(false); // SE5: an async enumerator cannot be disposed while it moves
            }

            await changes.DisposeAsync().ConfigureAwait(false);
        }
    }

    /// <summary>Waits for the next change, sending a keep-alive comment each interval it does not come.</summary>
    private async Task<bool> WaitAsync(Task<bool> next, ChangeEventWriter events, System.IO.Pipelines.PipeWriter pipe, CancellationToken cancellationToken)
    {
        if (options.KeepAliveInterval == Timeout.InfiniteTimeSpan)
        {
            return await next.ConfigureAwait(false);
        }

        while (!next.IsCompleted)
        {
            var idle = Task.Delay(options.KeepAliveInterval, cancellationToken);
            if (await Task.WhenAny(next, idle).ConfigureAwait(false) == next)
            {
                break;
            }

            cancellationToken.ThrowIfCancellationRequested();
            events.WriteKeepAlive();
            await pipe.FlushAsync(cancellationToken).ConfigureAwait(false);
        }

        return await next.ConfigureAwait(false);
    }

    private static bool IsEnd(Exception exception, CancellationToken cancellationToken) =>
        exception is ObjectDisposedException || (exception is OperationCanceledException && cancellationToken.IsCancellationRequested);

    private static async Task AwaitQuietlyAsync(Task<bool> pending)
    {
        try
        {
            await pending.ConfigureAwait(false);
        }
        catch (Exception)
        {
            // the stream has ended; how the pending move ended does not matter any more
        }
    }

    private static async Task FlushQuietlyAsync(System.IO.Pipelines.PipeWriter pipe)
    {
        try
        {
            await pipe.FlushAsync().ConfigureAwait(false);
        }
        catch (Exception)
        {
            // the client may have left meanwhile
        }
    }

    private static ProblemDetails BadRequest(string detail) =>
        new() { Status = StatusCodes.Status400BadRequest, Title = "Bad request", Detail = detail };

    private static ProblemDetails Gone(ChangeFeedPositionException old)
    {
        var (requested, oldest) = (old.Requested, old.Oldest);
        var problem = new ProblemDetails
        {
            Status = StatusCodes.Status410Gone,
            Title = requested > oldest ? "Change feed position ahead of the store" : "Change feed position no longer retained",
            Detail = requested > oldest // ahead of the store (CF8)
                ? old.Message
                : $"The changes after {requested} are no longer retained (DocumentStore's ChangeFeed.Retention); the oldest position accepted is {oldest}. " +
                  "Read the data again and resume from the version it had.",
        };
        problem.Extensions["requested"] = requested;
        problem.Extensions["oldest"] = oldest;
        return problem;
    }

    /// <summary>Writes a problem answer: through the app's problem details service when it has one, else as plain problem JSON.</summary>
    private static async Task AnswerAsync(HttpContext context, ProblemDetails problem)
    {
        if (context.RequestServices.GetService<IProblemDetailsService>() is { } problems && await problems.AnswerAsync(context, problem).ConfigureAwait(false))
        {
            return;
        }

        await TypedResults.Problem(problem).ExecuteAsync(context).ConfigureAwait(false);
    }
}
