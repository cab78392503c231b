using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.WebUtilities;

namespace Voron.Documents.AspNetCore.Http;

/// <summary>
/// BR4: some errors leave the framework with a status and no body — minimal APIs answer a body in
/// the wrong content type with an empty 415 before any handler or filter runs, and an endpoint may
/// return <c>TypedResults.NotFound()</c>. This middleware, first in the pipeline, gives such an
/// empty 4xx a problem-details body saying what the status means for this request. Answers that
/// have a body, or have started, are left alone.
/// </summary>
internal sealed class EmptyErrorMiddleware(RequestDelegate next, IProblemDetailsService problems)
{
    public async Task InvokeAsync(HttpContext context)
    {
        await next(context).ConfigureAwait(false);
        var response = context.Response;
        if (response.HasStarted || response.StatusCode is < 400 or >= 500 || response.ContentLength > 0 || response.ContentType != null
            || HttpMethods.IsHead(context.Request.Method))
        {
            return;
        }

        await problems.AnswerAsync(context, new ProblemDetails
        {
            Status = response.StatusCode,
            Title = ReasonPhrases.GetReasonPhrase(response.StatusCode),
            Detail = Detail(context.Request, response.StatusCode),
        }).ConfigureAwait(false);
    }

    private static string Detail(HttpRequest request, int status) => status switch
    {
        StatusCodes.Status415UnsupportedMediaType =>
            $"The request body must be JSON, sent with the header Content-Type: application/json; it was sent with the content type '{request.ContentType ?? "(none)"}'.",
        StatusCodes.Status404NotFound => $"Nothing was found at {request.Path}.",
        StatusCodes.Status405MethodNotAllowed => $"{request.Method} is not allowed on {request.Path}.",
        _ => $"The request to {request.Method} {request.Path} was refused ({status} {ReasonPhrases.GetReasonPhrase(status)}).",
    };
}

/// <summary>Puts <see cref="EmptyErrorMiddleware"/> first in every app's pipeline (BR4).</summary>
internal sealed class EmptyErrorStartupFilter : IStartupFilter
{
    public Action<IApplicationBuilder> Configure(Action<IApplicationBuilder> next) => app =>
    {
        app.UseMiddleware<EmptyErrorMiddleware>();
        next(app);
    };
}
