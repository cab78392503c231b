using Microsoft.AspNetCore.Diagnostics;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Net.Http.Headers;
using Voron.Documents.AspNetCore.Hosting;

namespace Voron.Documents.AspNetCore.Http;

/// <summary>
/// Answers the document store's exceptions with problem details (<c>AddVoronProblemDetails</c>):
/// what happened, what to do, and the facts (id, versions, index, value) as extensions. Other
/// exceptions are left to the next handler.
/// </summary>
internal sealed class DocumentExceptionHandler(IProblemDetailsService problems, IServiceProvider provider) : IExceptionHandler
{
    public async ValueTask<bool> TryHandleAsync(HttpContext httpContext, Exception exception, CancellationToken cancellationToken)
    {
        if (Describe(httpContext.Request, exception) is not { } problem)
        {
            return false;
        }

        if (exception is EnvironmentFailedException failed)
        {
            ReportFailure(failed);
        }

        return await problems.AnswerAsync(httpContext, problem, exception).ConfigureAwait(false);
    }

    /// <summary>The problem details for <paramref name="exception"/>, or null when it is not the document store's.</summary>
    internal static ProblemDetails? Describe(HttpRequest request, Exception exception)
    {
        switch (exception)
        {
            case ConcurrencyException conflict:
                // The expectation came from the request's own precondition: RFC 9110 says 412.
                var precondition = request.Headers.ContainsKey(HeaderNames.IfMatch) || request.Headers.ContainsKey(HeaderNames.IfNoneMatch);
                return Problem(precondition ? StatusCodes.Status412PreconditionFailed : StatusCodes.Status409Conflict,
                    precondition ? "Precondition failed" : "Concurrency conflict", conflict.Message,
                    ("id", conflict.Id), ("expectedVersion", conflict.ExpectedVersion), ("actualVersion", conflict.ActualVersion));
            case UniqueConstraintException unique:
                return Problem(StatusCodes.Status409Conflict, "Unique constraint violated", unique.Message,
                    ("id", unique.Id), ("collection", unique.Collection), ("index", unique.Index), ("value", unique.Value), ("existingId", unique.ExistingId));
            case InvalidJsonException json:
                return Problem(StatusCodes.Status400BadRequest, "Invalid JSON", json.Message);
            case DocumentLimitException limit:
                return Problem(limit.Limit == "document" ? StatusCodes.Status413RequestEntityTooLarge : StatusCodes.Status400BadRequest,
                    "Document limit exceeded", limit.Message, ("limit", limit.Limit), ("actual", limit.Actual), ("maximum", limit.Maximum));
            case EnvironmentFailedException failed:
                return Problem(StatusCodes.Status503ServiceUnavailable, "Document store unavailable",
                    "The document store stopped accepting writes after an I/O failure; it recovers when the app restarts.",
                    ("reason", failed.InnerException?.Message ?? failed.Message));
            default:
                return null;
        }
    }

    private static ProblemDetails Problem(int status, string title, string detail, params (string Key, object? Value)[] extensions)
    {
        var problem = new ProblemDetails { Status = status, Title = title, Detail = detail };
        foreach (var (key, value) in extensions)
        {
            problem.Extensions[key] = value;
        }

        return problem;
    }

    private void ReportFailure(EnvironmentFailedException failed)
    {
        foreach (var registration in provider.GetServices<DocumentStoreRegistration>())
        {
            var host = provider.GetRequiredKeyedService<DocumentStoreHost>(registration.Name);
            if (host.Environment?.Path == failed.Path)
            {
                host.ReportFailure(failed);
            }
        }
    }
}
