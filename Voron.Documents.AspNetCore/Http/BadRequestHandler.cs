using System.Text.Json;
using Microsoft.AspNetCore.Diagnostics;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;

namespace Voron.Documents.AspNetCore.Http;

// Errors at the HTTP door (AddVoronProblemDetails):
//
//   BR1. Minimal APIs report a request they cannot bind (bad JSON, a body of the wrong kind, a
//       property of the wrong type, a missing or unparsable query or route value, the wrong
//       content type, an empty body) as BadHttpRequestException — but only when
//       RouteHandlerOptions.ThrowOnBadRequest is set; otherwise they answer an empty 400 and log
//       at debug. AddVoronProblemDetails sets it, so every such request reaches this handler.
//   BR2. This handler answers every BadHttpRequestException (from binding, from IfMatchVersion, from
//       Kestrel's body limits) with its own status (400, 413, 415, ...) and a problem-details body:
//       the title names the kind, the detail the parameter and, for JSON, the reader's message
//       (the JSON path and byte position). It never answers 500 for input.
//   BR3. Numbers: a JSON number beyond ±1.7976931348623157e308 reads as infinity, which the store
//       cannot save (JSON has no infinity). FiniteNumberConverter refuses it while binding (BR2).
//   BR4. An error answer the framework or an endpoint leaves empty (minimal APIs' 415 for a body that
//       is not JSON is written before any handler runs) gets a problem body: EmptyErrorMiddleware.

/// <summary>Answers <see cref="BadHttpRequestException"/> with problem details (BR1, BR2).</summary>
internal sealed class BadRequestHandler(IProblemDetailsService problems) : IExceptionHandler
{
    public async ValueTask<bool> TryHandleAsync(HttpContext httpContext, Exception exception, CancellationToken cancellationToken)
    {
        if (exception is not BadHttpRequestException bad || httpContext.Response.HasStarted)
        {
            return false;
        }

        var problem = Describe(bad);
        return await problems.AnswerAsync(httpContext, problem, exception).ConfigureAwait(false);
    }

    /// <summary>The problem details for a request that could not be read (BR2).</summary>
    internal static ProblemDetails Describe(BadHttpRequestException exception)
    {
        var status = exception.StatusCode is >= 400 and < 500 ? exception.StatusCode : StatusCodes.Status400BadRequest;
        var title = status switch
        {
            StatusCodes.Status413PayloadTooLarge => "Request body too large",
            StatusCodes.Status415UnsupportedMediaType => "Unsupported content type",
            _ when exception.InnerException is JsonException => "Invalid JSON in the request body",
            _ => "Bad request",
        };
        var detail = exception.Message;
        if (status == StatusCodes.Status415UnsupportedMediaType)
        {
            detail += " Send the body as JSON with the header Content-Type: application/json.";
        }

        if (exception.InnerException is JsonException json)
        {
            detail += " " + json.Message;
            if (json.Path is { Length: > 0 } path && !json.Message.Contains(path, StringComparison.Ordinal))
            {
                detail += $" (at {path})";
            }
        }

        return new ProblemDetails { Status = status, Title = title, Detail = detail };
    }
}
